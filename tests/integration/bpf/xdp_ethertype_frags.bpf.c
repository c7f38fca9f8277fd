/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/* xdp_ethertype.bpf.c, multi-buffer aware (BPF_F_XDP_HAS_FRAGS). */
#define PROG_SECTION "xdp.frags"
#include "xdp_ethertype.bpf.c"
