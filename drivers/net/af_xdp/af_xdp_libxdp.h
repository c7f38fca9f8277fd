/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_LIBXDP_H
#define AF_XDP_LIBXDP_H

#include <xdp/libxdp.h>

#include "af_xdp.h"

/*
 * libbpf's and libxdp's errors are negative errno values or libbpf's own
 * codes (-LIBBPF_ERRNO__*, from 4000 on), which strerror() calls "Unknown
 * error"; libbpf_strerror() has words for both.
 */
#define AF_XDP_LIB_ERR_LEN 128
#define af_xdp_lib_strerror(err) \
	af_xdp_lib_strerror_r((err), (char[AF_XDP_LIB_ERR_LEN]){ 0 }, AF_XDP_LIB_ERR_LEN)
const char *af_xdp_lib_strerror_r(int err, char *buf, size_t size);

/* From now on libbpf and libxdp speak through our log type (once per process). */
void af_xdp_libxdp_route_logs(void);

/* A dispatcher and its programs (libxdp: 10 at most). */
#define AF_XDP_IFACE_MAX_PROGS	16

/* Ids of programs on an interface. */
struct af_xdp_prog_ids {
	uint32_t id[AF_XDP_IFACE_MAX_PROGS];
	unsigned int n;
};

/*
 * The programs on the interface, as libxdp sees them: one attached alone,
 * or a dispatcher and the programs under it.
 */
void af_xdp_libxdp_iface_programs(int ifindex, struct af_xdp_prog_ids *ids);

/*
 * Attach prog to the interface through libxdp (under its dispatcher where
 * it can), or detach it, alone or from under the dispatcher: 0 or -errno.
 * Built against libxdp before 1.4.1, the descriptors the call leaks are
 * closed (af_xdp_libxdp.c).
 */
int af_xdp_libxdp_attach(struct xdp_program *prog, int ifindex, enum xdp_attach_mode mode);
int af_xdp_libxdp_detach(struct xdp_program *prog, int ifindex, enum xdp_attach_mode mode);

#endif /* AF_XDP_LIBXDP_H */
