/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The built-in XDP programs (bpf/af_xdp_redirect.bpf.c, embedded in the
 * plugin): which one a port runs (the redirect policy), the object
 * prepared for it before load (the running kernel's helper number patched
 * into afxdp_direct's call, .rodata set through BTF: the owner mark and
 * the action value), and afxdp_direct's per-CPU counters of the frames
 * that did not go straight to a socket.  A port with Rx offloads runs the
 * same from the Rx-metadata object (bpf/af_xdp_rx_meta.bpf.c), bound to
 * its interface (af_xdp_rx_offload.c).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "af_xdp_builtin.h"
#include "af_xdp_kernel.h"
#include "af_xdp_libxdp.h"
#include "af_xdp_owner.h"

#define ACTION_VAR_NAME "xdp_redirect_xsk_action"
#define RX_META_WANT_VAR_NAME "rx_meta_want"

/* The default program, built by clang with the project (bpf/). */
extern const unsigned char af_xdp_bpf_obj[];
extern const size_t af_xdp_bpf_obj_len;
/* The same programs writing the Rx metadata first (Rx offloads). */
extern const unsigned char af_xdp_rx_meta_bpf_obj[];
extern const size_t af_xdp_rx_meta_bpf_obj_len;

/* The built-in program of a redirect, writing the Rx metadata or not. */
static const char *
builtin_name(enum af_xdp_redirect redirect, bool meta)
{
	bool direct = redirect == AF_XDP_REDIRECT_DIRECT;

	if (meta)
		return direct ? AF_XDP_PROG_META_DIRECT_NAME : AF_XDP_PROG_META_MAP_NAME;
	return direct ? AF_XDP_PROG_DIRECT_NAME : AF_XDP_PROG_MAP_NAME;
}

const char *
af_xdp_builtin_name(const struct af_xdp_port *port)
{
	return builtin_name(port->redirect, port->rx_meta != 0);
}

bool
af_xdp_builtin_has_name(const char *name)
{
	return strcmp(name, AF_XDP_PROG_MAP_NAME) == 0 ||
	       strcmp(name, AF_XDP_PROG_DIRECT_NAME) == 0 ||
	       strcmp(name, AF_XDP_PROG_META_MAP_NAME) == 0 ||
	       strcmp(name, AF_XDP_PROG_META_DIRECT_NAME) == 0;
}

/*
 * auto picks the faster: where the kernel batches bpf_redirect_map() into
 * an XSKMAP, map is as fast as direct (217 receive instructions per frame
 * each, in doc/guides/patched_kernel.rst) and keeps the map's semantics, so
 * map; otherwise direct where the kernel has it, map elsewhere.
 */
int
af_xdp_builtin_choose_redirect(struct af_xdp_port *port)
{
	const struct af_xdp_kernel *k;

	if (port->args.redirect == AF_XDP_REDIRECT_MAP) {
		port->redirect = AF_XDP_REDIRECT_MAP;
		AF_XDP_PORT_LOG(INFO, port, "redirect: map (bpf_redirect_map), as %s=map asks",
				AF_XDP_ARG_REDIRECT);
		return 0;
	}
	k = af_xdp_kernel_probe();
	if (port->args.redirect == AF_XDP_REDIRECT_AUTO && k->batched_map) {
		port->redirect = AF_XDP_REDIRECT_MAP;
		AF_XDP_PORT_LOG(INFO, port,
				"redirect: map (bpf_redirect_map), redirect=auto and %s: as fast as bpf_redirect_xsk, with the map's semantics%s",
				k->batch_why,
				k->has_direct ? " (redirect=direct remains available)" : "");
		return 0;
	}
	if (k->has_direct) {
		port->redirect = AF_XDP_REDIRECT_DIRECT;
		port->redirect_xsk_helper = k->redirect_xsk_helper;
		port->redirect_xsk_action = k->redirect_xsk_action;
		AF_XDP_PORT_LOG(INFO, port, "redirect: direct (bpf_redirect_xsk), %s: %s",
				port->args.redirect == AF_XDP_REDIRECT_DIRECT ?
				"as redirect=direct asks" : "redirect=auto and", k->why);
		return 0;
	}
	if (port->args.redirect == AF_XDP_REDIRECT_DIRECT) {
		AF_XDP_PORT_LOG(ERR, port,
				"%s=direct, but %s; use %s=auto or %s=map here, or boot the patched kernel (doc/guides/patched_kernel.rst)",
				AF_XDP_ARG_REDIRECT, k->why, AF_XDP_ARG_REDIRECT, AF_XDP_ARG_REDIRECT);
		return -ENOTSUP;
	}
	port->redirect = AF_XDP_REDIRECT_MAP;
	AF_XDP_PORT_LOG(INFO, port, "redirect: map (bpf_redirect_map), redirect=auto and %s; %s",
			k->why, k->batch_why);
	return 0;
}

/* Largest queue index + 1 the map must hold: every queue the interface may have. */
static uint32_t
xskmap_entries(const struct af_xdp_port *port)
{
	uint32_t n = RTE_MAX(port->max_queues, port->args.start_queue + port->args.queue_count);

	return RTE_MAX(n, 1u);
}

/* Put the running kernel's helper number into afxdp_direct's call. */
static int
set_redirect_xsk_helper(struct bpf_program *prog, int32_t helper)
{
	size_t i, n = bpf_program__insn_cnt(prog);
	struct bpf_insn *insns = malloc(n * sizeof(*insns));
	unsigned int patched = 0;
	int ret;

	if (insns == NULL)
		return -ENOMEM;
	memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
	for (i = 0; i < n; i++) {
		if (insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == 0 &&
		    insns[i].imm == AF_XDP_REDIRECT_XSK_PLACEHOLDER) {
			insns[i].imm = helper;
			patched++;
		}
	}
	ret = patched == 1 ? bpf_program__set_insns(prog, insns, n) : -ENOENT;
	free(insns);
	return ret;
}

/* Set the global `name` of the object's .rodata, `size` bytes, before load. */
static int
set_rodata(struct bpf_object *obj, const char *name, const void *value, size_t size)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;
	const void *init;
	size_t len;
	void *data;
	int id, off, ret;

	id = btf != NULL ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (id < 0)
		return -ENOENT;
	bpf_object__for_each_map(map, obj)
		if (bpf_map__is_internal(map) && strstr(bpf_map__name(map), ".rodata") != NULL)
			break;
	init = map != NULL ? bpf_map__initial_value(map, &len) : NULL;
	off = af_xdp_btf_var_offset(btf, (uint32_t)id, name, size);
	if (init == NULL || off < 0 || (size_t)off + size > len)
		return -ENOENT;
	data = malloc(len);
	if (data == NULL)
		return -ENOMEM;
	memcpy(data, init, len);
	memcpy((char *)data + off, value, size);
	ret = bpf_map__set_initial_value(map, data, len);
	free(data);
	return ret;
}

/* This process's mark in the copy about to be loaded. */
static int
set_owner_mark(struct bpf_object *obj)
{
	struct af_xdp_owner owner;
	int ret = af_xdp_owner_self(&owner);

	return ret != 0 ? ret : set_rodata(obj, AF_XDP_OWNER_VAR, &owner, sizeof(owner));
}

/* Only the chosen program is loaded: the object's others are not. */
static int
load_only(struct bpf_object *obj, const struct bpf_program *chosen)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
		if (p != chosen && bpf_program__set_autoload(p, false) != 0)
			return -EINVAL;
	return 0;
}

/*
 * Load a program bound to the device prog_ifindex names, not offloaded to it
 * (Linux 6.3; Debian 12's UAPI headers, from 6.1, lack it).
 */
#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif

/*
 * The Rx-metadata program: which values to fetch (want), the mbuf flags
 * that say they are there, and bound to the interface, as the metadata
 * functions require.  libbpf adds BPF_F_XDP_HAS_FRAGS at load (section
 * xdp.frags).
 */
static int
bind_to_iface(const struct af_xdp_port *port, struct bpf_object *obj, struct bpf_program *prog,
	      uint32_t want)
{
	uint64_t ol_hash = RTE_MBUF_F_RX_RSS_HASH;
	uint64_t ol_vlan = RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	uint64_t ol_timestamp = port->rx_timestamp_flag;

	if (set_rodata(obj, RX_META_WANT_VAR_NAME, &want, sizeof(want)) != 0 ||
	    set_rodata(obj, "rx_ol_rss_hash", &ol_hash, sizeof(ol_hash)) != 0 ||
	    set_rodata(obj, "rx_ol_vlan", &ol_vlan, sizeof(ol_vlan)) != 0 ||
	    set_rodata(obj, "rx_ol_timestamp", &ol_timestamp, sizeof(ol_timestamp)) != 0)
		return -EINVAL;
	bpf_program__set_ifindex(prog, (uint32_t)port->ifindex);
	return bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_XDP_DEV_BOUND_ONLY);
}

/*
 * The built-in object, prepared for the port's redirect and the Rx metadata
 * rx_meta (bound to the port's interface when not 0): only that program
 * loads.  NULL, the cause logged, where it cannot be prepared.
 */
static struct bpf_object *
open_prepared(const struct af_xdp_port *port, uint32_t rx_meta)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "af_xdp_direct");
	bool direct = port->redirect == AF_XDP_REDIRECT_DIRECT;
	bool meta = rx_meta != 0;
	const char *name = builtin_name(port->redirect, meta);
	uint32_t action = (uint32_t)port->redirect_xsk_action;
	struct bpf_map *xskmap, *fallbacks;
	struct bpf_program *chosen;
	struct bpf_object *obj;

	obj = meta ? bpf_object__open_mem(af_xdp_rx_meta_bpf_obj, af_xdp_rx_meta_bpf_obj_len, &opts) :
	      bpf_object__open_mem(af_xdp_bpf_obj, af_xdp_bpf_obj_len, &opts);
	if (obj == NULL) {
		AF_XDP_PORT_LOG(ERR, port, "cannot open the built-in XDP object: %s",
				af_xdp_lib_strerror(errno));
		return NULL;
	}
	chosen = bpf_object__find_program_by_name(obj, name);
	xskmap = bpf_object__find_map_by_name(obj, AF_XDP_XSKMAP_NAME);
	fallbacks = bpf_object__find_map_by_name(obj, AF_XDP_FALLBACKS_MAP_NAME);
	if (chosen == NULL || xskmap == NULL || fallbacks == NULL ||
	    load_only(obj, chosen) != 0 ||
	    bpf_map__set_max_entries(xskmap, xskmap_entries(port)) != 0 ||
	    (!direct && bpf_map__set_autocreate(fallbacks, false) != 0) ||
	    (direct && set_redirect_xsk_helper(chosen, port->redirect_xsk_helper) != 0) ||
	    set_owner_mark(obj) != 0 ||
	    (direct && set_rodata(obj, ACTION_VAR_NAME, &action, sizeof(action)) != 0) ||
	    (meta && bind_to_iface(port, obj, chosen, rx_meta) != 0)) {
		AF_XDP_PORT_LOG(ERR, port, "cannot prepare the built-in XDP program %s", name);
		bpf_object__close(obj);
		return NULL;
	}
	return obj;
}

int
af_xdp_builtin_open(const struct af_xdp_port *port, struct xdp_program **progp,
		    struct bpf_object **objp)
{
	const char *name = af_xdp_builtin_name(port);
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .prog_name = name);
	struct xdp_program *prog = NULL;
	struct bpf_object *obj = open_prepared(port, port->rx_meta);

	if (obj == NULL)
		return -EINVAL;
	if (port->rx_meta == 0) {
		xopts.obj = obj;
		prog = xdp_program__create(&xopts);
		if (libxdp_get_error(prog)) {
			AF_XDP_PORT_LOG(ERR, port, "libxdp refused the built-in program %s: %s",
					name,
					af_xdp_lib_strerror((int)libxdp_get_error(prog)));
			bpf_object__close(obj);
			return -EINVAL;
		}
	}
	*progp = prog;
	*objp = obj;
	return 0;
}

/*
 * What the verifier named in its refusal (its log's last words, which the
 * kernel keeps when the log is cut short): the helper ("... cannot use
 * helper bpf_xdp_adjust_meta#54") or kernel function ("calling kernel
 * function bpf_xdp_metadata_rx_hash is not allowed"); else "unknown".
 */
static void
name_refusal(const char *log, char *refused, size_t len)
{
	static const struct {
		const char *before;
		const char *ends;
	} says[] = {
		{ "cannot use helper ", "#\n " },
		{ "kernel function ", " \n" },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(says); i++) {
		const char *at = strstr(log, says[i].before);

		if (at != NULL) {
			at += strlen(says[i].before);
			snprintf(refused, len, "%.*s", (int)strcspn(at, says[i].ends), at);
			return;
		}
	}
	snprintf(refused, len, "unknown");
}

/* The verifier's log of a probe: up to its refusal, a small program's. */
#define PROBE_LOG_SIZE (64 * 1024)

int
af_xdp_builtin_try_bound(const struct af_xdp_port *port, uint32_t want, char *refused,
			 size_t len)
{
	struct bpf_object *obj = open_prepared(port, want);
	struct bpf_program *prog;
	char *log;
	int ret;

	refused[0] = '\0';
	if (obj == NULL)
		return -EINVAL;
	log = calloc(1, PROBE_LOG_SIZE);
	prog = bpf_object__find_program_by_name(obj, builtin_name(port->redirect, true));
	if (log != NULL && prog != NULL)
		bpf_program__set_log_buf(prog, log, PROBE_LOG_SIZE);
	ret = bpf_object__load(obj);
	if (ret != 0)
		name_refusal(log != NULL ? log : "", refused, len);
	free(log);
	bpf_object__close(obj);
	return ret;
}

int
af_xdp_builtin_fallbacks_fd(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, AF_XDP_FALLBACKS_MAP_NAME);

	return map != NULL ? bpf_map__fd(map) : -ENOENT;
}

/*
 * A per-CPU map's value holds one counter per possible CPU of the machine,
 * however many lcores DPDK was built for.
 */
static uint64_t *
per_cpu_buffer(int *cpus)
{
	*cpus = libbpf_num_possible_cpus();
	return *cpus > 0 ? calloc((size_t)*cpus, sizeof(uint64_t)) : NULL;
}

int
af_xdp_prog_read_fallbacks(int fd, uint64_t counts[AF_XDP_FALLBACK_MAX])
{
	uint64_t *per_cpu;
	int cpus, c, ret = 0;
	uint32_t key;

	memset(counts, 0, AF_XDP_FALLBACK_MAX * sizeof(counts[0]));
	if (fd < 0)
		return -EBADF;
	per_cpu = per_cpu_buffer(&cpus);
	if (per_cpu == NULL)
		return -ENOMEM;
	for (key = 0; key < AF_XDP_FALLBACK_MAX; key++) {
		if (bpf_map_lookup_elem(fd, &key, per_cpu) != 0) {
			ret = -errno;
			break;
		}
		for (c = 0; c < cpus; c++)
			counts[key] += per_cpu[c];
	}
	free(per_cpu);
	return ret;
}

void
af_xdp_prog_reset_fallbacks(int fd)
{
	uint64_t *zeros;
	uint32_t key;
	int cpus;

	if (fd < 0)
		return;
	zeros = per_cpu_buffer(&cpus);
	for (key = 0; zeros != NULL && key < AF_XDP_FALLBACK_MAX; key++)
		(void)bpf_map_update_elem(fd, &key, zeros, BPF_ANY);
	free(zeros);
}
