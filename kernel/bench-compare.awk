#!/usr/bin/awk -f
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-compare.awk [-v mode=copy|zero-copy] UNPATCHED.csv PATCHED.csv
#
# kernel/bench.sh's last table: the medians of xsk_bench (--medians) on the
# unpatched kernel and on the patched one, program by program, and the
# targets of the batched map path (copy mode: the patched run's sockets in
# zero-copy mode are not batched copy-mode receive, so no targets then).
# Columns of each file: program,kernel_ns,receive_ns,delivered_per_s.

BEGIN { FS = ","; if (mode == "") mode = "copy" }
FNR == 1 { file++; next }
{
	prog[$1] = 1
	if (!($1 in seen)) { order[++n] = $1; seen[$1] = 1 }
	k[file, $1] = $2
	rx[file, $1] = $3
}

function change(new, old) {
	return old > 0 ? sprintf("%+.1f%%", 100 * (new / old - 1)) : "-"
}
function cell(f, p, what) {
	if (what == "k")
		return ((f, p) in k) ? sprintf("%.0f", k[f, p]) : "-"
	return ((f, p) in rx) && p != "drop" ? sprintf("%.0f", rx[f, p]) : "-"
}
function target(what, value, ref, limit_pct, text,   d) {
	if (value == "" || ref == "" || ref <= 0) {
		printf("#   %-40s not measured\n", what)
		return
	}
	d = 100 * (value / ref - 1)
	printf("#   %-40s %+6.1f%%  (target: %s) %s\n", what, d, text,
	       d <= limit_pct ? "met" : "NOT met")
}

END {
	printf("# unpatched (copy mode, one frame at a time) against patched (%s mode);\n", mode)
	printf("# kernel ns/frame: generator + receive; receive: minus the same kernel's drop\n")
	printf("| program | unpatched kernel ns/frame | patched | change | unpatched receive ns/frame | patched | change |\n")
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for (i = 1; i <= n; i++) {
		p = order[i]
		printf("| %s | %s | %s | %s | %s | %s | %s |\n", p, cell(1, p, "k"), cell(2, p, "k"),
		       ((1, p) in k) && ((2, p) in k) ? change(k[2, p], k[1, p]) : "-",
		       cell(1, p, "rx"), cell(2, p, "rx"),
		       p != "drop" && ((1, p) in rx) && ((2, p) in rx) ? change(rx[2, p], rx[1, p]) : "-")
	}
	if (mode != "copy")
		exit 0
	printf("# targets, on receive ns/frame:\n")
	target("map: patched vs unpatched", rx[2, "map"], rx[1, "map"], -30, "at least 30% below")
	target("alt: patched vs unpatched", rx[2, "alt"], rx[1, "alt"], 0, "no more than unpatched")
	if ((2, "xsk") in rx)
		target("map vs xsk, both patched", rx[2, "map"], rx[2, "xsk"], 3, "at most 3% above")
}
