# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark's modules: parse (testpmd and tool output), stats
(aggregation, ratios, verdicts), report (Markdown, CSV, plot), machine
(placement and the host's state) and scenario (topology and runs)."""
