/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The XDP program in front of the sockets, and its XSKMAP.
 *
 * One attachment per interface and process: ports on different queues of
 * the same interface share the program and the map, and the last one to
 * leave detaches the program, and only if we attached it.  The program is
 *   - ours (embedded in the plugin, loaded through libxdp so that it
 *     coexists with other programs under libxdp's dispatcher, and attached
 *     alone when the dispatcher cannot be loaded),
 *   - the user's (xdp_prog=), which must have an XSKMAP named xsks_map,
 *   - or someone else's: the map comes from a pinned path or from the
 *     AF_XDP device plugin, and we attach nothing.
 * Before attaching, a built-in program that a process which no longer
 * exists left on the interface (killed before it could detach) is removed:
 * each copy carries its owner's mark (af_xdp_owner.c).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "af_xdp_cni.h"
#include "af_xdp_iface.h"
#include "af_xdp_kernel.h"
#include "af_xdp_owner.h"
#include "af_xdp_prog.h"

#define XSKMAP_NAME "xsks_map"
#define FALLBACKS_MAP_NAME "afxdp_fallbacks"
#define PROG_MAP_NAME "afxdp_map"
#define PROG_DIRECT_NAME "afxdp_direct"
#define ACTION_VAR_NAME "xdp_redirect_xsk_action"

/* The default program, built by clang with the project (bpf/). */
extern const unsigned char af_xdp_bpf_obj[];
extern const size_t af_xdp_bpf_obj_len;

enum prog_origin {
	PROG_BUILTIN,		/* ours */
	PROG_USER,		/* xdp_prog= */
	PROG_PINNED_MAP,	/* use_pinned_map=1: program attached by someone else */
	PROG_CNI,		/* use_cni=1: map from the device plugin */
};

static const char * const origin_names[] = {
	[PROG_BUILTIN] = "built-in",
	[PROG_USER] = "xdp_prog",
	[PROG_PINNED_MAP] = "use_pinned_map",
	[PROG_CNI] = "use_cni",
};

struct af_xdp_prog_attachment {
	TAILQ_ENTRY(af_xdp_prog_attachment) next;
	int ifindex;
	unsigned int users;		/* ports of this process using it */
	enum prog_origin origin;
	char source[PATH_MAX];		/* xdp_prog or dp_path */
	struct xdp_program *prog;	/* NULL when not attached by us */
	struct bpf_object *obj;		/* the built-in object, which libxdp does not own */
	enum xdp_attach_mode mode;
	int xskmap_fd;
	int fallbacks_fd;		/* afxdp_direct's counters, -1 otherwise */
};

static TAILQ_HEAD(, af_xdp_prog_attachment) attachments =
	TAILQ_HEAD_INITIALIZER(attachments);
static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * libbpf's and libxdp's errors are negative errno values or libbpf's own
 * codes (-LIBBPF_ERRNO__*, from 4000 on), which strerror() calls "Unknown
 * error"; libbpf_strerror() has words for both.
 */
#define LIB_ERR_LEN 128
#define lib_strerror(err) lib_strerror_r((err), (char[LIB_ERR_LEN]){ 0 }, LIB_ERR_LEN)

static const char *
lib_strerror_r(int err, char *buf, size_t size)
{
	if (libbpf_strerror(err, buf, size) != 0)
		snprintf(buf, size, "error %d", err);
	return buf;
}

/* libbpf and libxdp speak through our log type, at a level that fits. */
static int
lib_print(int level, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	rte_log((uint32_t)level, af_xdp_logtype, "%s\n", msg);
	return 0;
}

static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf warns about things that are normal here (unknown sections). */
	return lib_print(level == LIBBPF_WARN ? RTE_LOG_INFO : RTE_LOG_DEBUG, fmt, ap);
}

/*
 * libxdp warns about what is routine here (no bpffs in a network
 * namespace, no dispatcher: a single program is attached instead); the
 * driver reports the outcome itself, and every failure with its cause.
 */
static int
libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return lib_print(level == LIBXDP_DEBUG ? RTE_LOG_DEBUG : RTE_LOG_INFO, fmt, ap);
}

static void
route_library_logs(void)
{
	static bool done;

	if (done)
		return;
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
	done = true;
}

static enum xdp_attach_mode
libxdp_mode(enum af_xdp_attach_mode mode)
{
	switch (mode) {
	case AF_XDP_ATTACH_DRV:
		return XDP_MODE_NATIVE;
	case AF_XDP_ATTACH_SKB:
		return XDP_MODE_SKB;
	case AF_XDP_ATTACH_HW:
		return XDP_MODE_HW;
	default:
		return XDP_MODE_UNSPEC;
	}
}

static const char *
libxdp_mode_name(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return "native (drv)";
	case XDP_MODE_SKB:
		return "generic (skb)";
	case XDP_MODE_HW:
		return "offloaded (hw)";
	default:
		return "unknown";
	}
}

static enum prog_origin
port_origin(const struct af_xdp_port *port)
{
	if (port->args.use_cni)
		return PROG_CNI;
	if (port->args.use_pinned_map)
		return PROG_PINNED_MAP;
	if (port->args.xdp_prog[0] != '\0')
		return PROG_USER;
	return PROG_BUILTIN;
}

/* What, beyond the origin, ports sharing an interface must agree on. */
static const char *
port_source(const struct af_xdp_port *port)
{
	switch (port_origin(port)) {
	case PROG_USER:
		return port->args.xdp_prog;
	case PROG_BUILTIN:
		return port->redirect == AF_XDP_REDIRECT_DIRECT ? PROG_DIRECT_NAME : PROG_MAP_NAME;
	default:
		return port->args.dp_path;
	}
}

/*
 * Resolve redirect=auto|direct|map against the running kernel, at probe.
 * Only the built-in program has a choice; with the user's or someone
 * else's program, port->redirect stays AUTO, meaning "not ours to say".
 *
 * auto picks the faster: where the kernel batches bpf_redirect_map() into
 * an XSKMAP, map is as fast as direct (217 receive instructions per frame
 * each, in doc/guides/patched_kernel.rst) and keeps the map's semantics, so
 * map; otherwise direct where the kernel has it, map elsewhere.
 */
int
af_xdp_prog_choose_redirect(struct af_xdp_port *port)
{
	const struct af_xdp_kernel *k;

	port->redirect = AF_XDP_REDIRECT_AUTO;
	if (port_origin(port) != PROG_BUILTIN)
		return 0;
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

static int
check_xskmap(const struct af_xdp_port *port, int fd, const char *what)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0) {
		int err = errno;

		AF_XDP_PORT_LOG(ERR, port, "cannot inspect the map from %s: %s", what,
				strerror(err));
		return -err;
	}
	if (info.type != BPF_MAP_TYPE_XSKMAP) {
		AF_XDP_PORT_LOG(ERR, port, "the map from %s is not an XSKMAP (type %u)", what,
				info.type);
		return -EINVAL;
	}
	if (info.max_entries < port->args.start_queue + port->args.queue_count) {
		AF_XDP_PORT_LOG(ERR, port,
				"the XSKMAP from %s has %u entries, too few for queues %u..%u",
				what, info.max_entries, port->args.start_queue,
				port->args.start_queue + port->args.queue_count - 1);
		return -EINVAL;
	}
	return 0;
}

static int
find_xskmap(const struct af_xdp_port *port, struct xdp_program *prog, const char *what)
{
	struct bpf_object *obj = xdp_program__bpf_obj(prog);
	struct bpf_map *map = obj != NULL ? bpf_object__find_map_by_name(obj, XSKMAP_NAME) : NULL;

	if (map == NULL || bpf_map__fd(map) < 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"%s has no XSKMAP named %s: the sockets are inserted there, at the queue index",
				what, XSKMAP_NAME);
		return -ENOENT;
	}
	return bpf_map__fd(map);
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

/*
 * The built-in object, prepared for the redirect chosen at probe: only the
 * chosen program is loaded; afxdp_direct gets the running kernel's helper
 * number and action value first.
 */
static int
open_builtin_program(const struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "af_xdp_direct");
	bool direct = port->redirect == AF_XDP_REDIRECT_DIRECT;
	const char *name = direct ? PROG_DIRECT_NAME : PROG_MAP_NAME;
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .prog_name = name);
	uint32_t action = (uint32_t)port->redirect_xsk_action;
	struct bpf_program *chosen, *other;
	struct bpf_map *xskmap, *fallbacks;
	struct xdp_program *prog;
	struct bpf_object *obj;

	obj = bpf_object__open_mem(af_xdp_bpf_obj, af_xdp_bpf_obj_len, &opts);
	if (obj == NULL) {
		AF_XDP_PORT_LOG(ERR, port, "cannot open the built-in XDP object: %s",
				lib_strerror(errno));
		return -EINVAL;
	}
	chosen = bpf_object__find_program_by_name(obj, name);
	other = bpf_object__find_program_by_name(obj, direct ? PROG_MAP_NAME : PROG_DIRECT_NAME);
	xskmap = bpf_object__find_map_by_name(obj, XSKMAP_NAME);
	fallbacks = bpf_object__find_map_by_name(obj, FALLBACKS_MAP_NAME);
	if (chosen == NULL || other == NULL || xskmap == NULL || fallbacks == NULL ||
	    bpf_program__set_autoload(other, false) != 0 ||
	    bpf_map__set_max_entries(xskmap, xskmap_entries(port)) != 0 ||
	    (!direct && bpf_map__set_autocreate(fallbacks, false) != 0) ||
	    (direct && set_redirect_xsk_helper(chosen, port->redirect_xsk_helper) != 0) ||
	    set_owner_mark(obj) != 0 ||
	    (direct && set_rodata(obj, ACTION_VAR_NAME, &action, sizeof(action)) != 0)) {
		AF_XDP_PORT_LOG(ERR, port, "cannot prepare the built-in XDP program %s", name);
		bpf_object__close(obj);
		return -EINVAL;
	}
	xopts.obj = obj;
	prog = xdp_program__create(&xopts);
	if (libxdp_get_error(prog)) {
		AF_XDP_PORT_LOG(ERR, port, "libxdp refused the built-in program %s: %s", name,
				lib_strerror((int)libxdp_get_error(prog)));
		bpf_object__close(obj);
		return -EINVAL;
	}
	att->prog = prog;
	att->obj = obj;
	return 0;
}

/*
 * libxdp takes the object's first program and loads it as XDP whatever its
 * section says: a program meant for another hook (tc, ...) would be
 * attached, and run on the wrong context, if the verifier let it through.
 */
static int
check_user_program_type(const struct af_xdp_port *port, struct xdp_program *prog)
{
	struct bpf_object *obj = xdp_program__bpf_obj(prog);
	struct bpf_program *bp = obj != NULL ?
		bpf_object__find_program_by_name(obj, xdp_program__name(prog)) : NULL;
	enum bpf_prog_type type = bp != NULL ? bpf_program__type(bp) : BPF_PROG_TYPE_UNSPEC;

	if (type == BPF_PROG_TYPE_XDP || type == BPF_PROG_TYPE_UNSPEC)
		return 0;
	AF_XDP_PORT_LOG(ERR, port,
			"%s=%s is not an XDP object: its program %s (section \"%s\") is a %s program; give an object whose first program is in an \"xdp\" section",
			AF_XDP_ARG_XDP_PROG, port->args.xdp_prog, xdp_program__name(prog),
			bpf_program__section_name(bp), libbpf_bpf_prog_type_str(type));
	return -EINVAL;
}

static int
open_user_program(const struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	struct xdp_program *prog = xdp_program__open_file(port->args.xdp_prog, NULL, NULL);

	if (libxdp_get_error(prog)) {
		AF_XDP_PORT_LOG(ERR, port, "cannot open %s=%s as an XDP object: %s",
				AF_XDP_ARG_XDP_PROG, port->args.xdp_prog,
				lib_strerror((int)libxdp_get_error(prog)));
		return -EINVAL;
	}
	if (check_user_program_type(port, prog) != 0) {
		xdp_program__close(prog);
		return -EINVAL;
	}
	att->prog = prog;
	return 0;
}

/* Close what open_*_program() opened; libxdp does not own our object. */
static void
close_program(struct af_xdp_prog_attachment *att)
{
	xdp_program__close(att->prog);
	att->prog = NULL;
	bpf_object__close(att->obj);
	att->obj = NULL;
}

#define IFACE_MAX_PROGS	16	/* a dispatcher and its programs (libxdp: 10 at most) */

/* Ids of programs on an interface. */
struct prog_ids {
	uint32_t id[IFACE_MAX_PROGS];
	unsigned int n;
};

static void
add_prog_id(struct prog_ids *ids, const struct xdp_program *prog)
{
	uint32_t id = prog != NULL ? xdp_program__id(prog) : 0;
	unsigned int i;

	for (i = 0; i < ids->n; i++)
		if (ids->id[i] == id)
			return;
	if (id != 0 && ids->n < RTE_DIM(ids->id))
		ids->id[ids->n++] = id;
}

#if AF_XDP_LIBXDP_LEAKS_PROG_FDS
/*
 * libxdp before 1.4.1 (Debian 12 has 1.3.1) leaks a descriptor of each
 * program it finds on an interface: xdp_multiprog__get_from_ifindex(),
 * which xdp_program__attach() and xdp_program__detach() call as well, opens
 * each program (by id, or by its pin under the dispatcher), keeps a
 * duplicate and closes only the duplicate (xdp-tools 48ad94b, in 1.4.1).  A
 * leaked descriptor keeps its program loaded until the process exits: one
 * program and two descriptors per port stop/start.  So, built against such
 * a libxdp (meson.build decides, by its version), each such call is
 * bracketed: the program descriptors the process holds are noted before
 * it, and after it those that are new and refer to one of the programs the
 * call looked up (their ids, which libxdp returned to a lookup just
 * before) are closed.  The one descriptor this could take from someone
 * else is one that another thread of the application opened, during the
 * call, for one of these very programs: this file calls libxdp under
 * attach_lock, and the programs are on an interface of ours.
 */
#define GUARD_MAX_FDS	256

struct prog_fd {
	int fd;
	uint32_t id;
};

struct leak_guard {
	struct prog_fd held[GUARD_MAX_FDS];	/* the process's program descriptors before */
	unsigned int nb_held;
	bool blind;			/* too many to note: close nothing */
};

static bool
has_prog_id(const struct prog_ids *ids, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < ids->n; i++)
		if (ids->id[i] == id)
			return true;
	return false;
}

static bool
is_prog_fd(int fd)
{
	char path[32], target[32];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:bpf-prog") == 0;
}

/* The process's descriptors of BPF programs, at most max; -errno. */
static int
list_prog_fds(struct prog_fd *out, unsigned int max, bool *more)
{
	DIR *dir = opendir("/proc/self/fd");
	unsigned int n = 0;
	struct dirent *e;

	*more = false;
	if (dir == NULL)
		return -errno;
	while ((e = readdir(dir)) != NULL) {
		struct bpf_prog_info info = { 0 };
		uint32_t len = sizeof(info);
		int fd = atoi(e->d_name);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(dir) ||
		    !is_prog_fd(fd) || bpf_obj_get_info_by_fd(fd, &info, &len) != 0)
			continue;
		if (n == max) {
			*more = true;
			break;
		}
		out[n++] = (struct prog_fd){ .fd = fd, .id = info.id };
	}
	closedir(dir);
	return (int)n;
}

/* Note the program descriptors the process holds now. */
static void
leak_guard_note(struct leak_guard *g)
{
	int n = list_prog_fds(g->held, RTE_DIM(g->held), &g->blind);

	g->blind |= n < 0;
	g->nb_held = n > 0 ? (unsigned int)n : 0;
}

static bool
held_before(const struct leak_guard *g, const struct prog_fd *p)
{
	unsigned int i;

	for (i = 0; i < g->nb_held; i++)
		if (g->held[i].fd == p->fd && g->held[i].id == p->id)
			return true;
	return false;
}

/* Close the descriptors of programs ids opened since leak_guard_note(). */
static void
leak_guard_close(const struct leak_guard *g, const struct prog_ids *ids)
{
	struct prog_fd now[GUARD_MAX_FDS];
	bool more;
	int i, n;

	if (ids->n == 0 || g->blind)
		return;
	n = list_prog_fds(now, RTE_DIM(now), &more);
	for (i = 0; i < n; i++)
		if (has_prog_id(ids, now[i].id) && !held_before(g, &now[i])) {
			AF_XDP_LOG(DEBUG, "closing descriptor %d of XDP program id %u, leaked by libxdp",
				   now[i].fd, now[i].id);
			close(now[i].fd);
		}
}
#else
/* libxdp 1.4.1 and later close what they open: nothing to guard. */
struct leak_guard {
	bool unused;
};

static void
leak_guard_note(struct leak_guard *g __rte_unused)
{
}

static void
leak_guard_close(const struct leak_guard *g __rte_unused,
		 const struct prog_ids *ids __rte_unused)
{
}
#endif /* AF_XDP_LIBXDP_LEAKS_PROG_FDS */

/*
 * The programs on the interface, as libxdp sees them: one attached alone,
 * or a dispatcher and the programs under it.
 */
static void
find_iface_programs(int ifindex, struct prog_ids *ids)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct xdp_program *p = NULL;
	struct xdp_multiprog *mp;
	struct leak_guard g;

	ids->n = 0;
	if (bpf_xdp_query(ifindex, 0, &q) != 0 ||
	    (q.drv_prog_id == 0 && q.skb_prog_id == 0 && q.hw_prog_id == 0))
		return;
	/* Which programs the lookup leaks is known only after it: all it found. */
	leak_guard_note(&g);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (libxdp_get_error(mp) || mp == NULL)
		return;
	add_prog_id(ids, xdp_multiprog__main_prog(mp));
	add_prog_id(ids, xdp_multiprog__hw_prog(mp));
	while ((p = xdp_multiprog__next_prog(p, mp)) != NULL)
		add_prog_id(ids, p);
	xdp_multiprog__close(mp);
	leak_guard_close(&g, ids);
}

/* A libxdp call that looks the interface's programs up, and its guard. */
struct libxdp_call {
	struct prog_ids on_iface;	/* the programs it may leak descriptors of */
	struct leak_guard guard;
};

/* Before a libxdp call on the interface; after it, libxdp_call_end(). */
static void
libxdp_call_begin(int ifindex, struct libxdp_call *c)
{
	c->on_iface.n = 0;
	if (!AF_XDP_LIBXDP_LEAKS_PROG_FDS)
		return;
	find_iface_programs(ifindex, &c->on_iface);
	if (c->on_iface.n != 0)
		leak_guard_note(&c->guard);
}

static void
libxdp_call_end(const struct libxdp_call *c)
{
	leak_guard_close(&c->guard, &c->on_iface);
}

/*
 * How the program just attached runs: in which mode, and alone or under
 * libxdp's dispatcher (the interface's program is then another one).
 */
static void
note_attachment(const struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	uint32_t id = xdp_program__id(att->prog), main = 0;
	bool dispatcher;

	att->mode = XDP_MODE_UNSPEC;
	if (bpf_xdp_query(port->ifindex, 0, &q) == 0) {
		bool skb = q.skb_prog_id != 0 && (q.drv_prog_id == 0 || q.skb_prog_id == id);

		att->mode = skb ? XDP_MODE_SKB : q.drv_prog_id != 0 ? XDP_MODE_NATIVE :
			    q.hw_prog_id != 0 ? XDP_MODE_HW : XDP_MODE_UNSPEC;
		main = skb ? q.skb_prog_id : q.drv_prog_id != 0 ? q.drv_prog_id : q.hw_prog_id;
	}
	dispatcher = main != 0 && main != id;
	AF_XDP_PORT_LOG(INFO, port, "XDP program %s (%s, id %u) attached to %s in %s mode, %s",
			xdp_program__name(att->prog), origin_names[att->origin], id,
			port->args.iface, libxdp_mode_name(att->mode),
			dispatcher ? "under libxdp's dispatcher" :
			"alone (libxdp's dispatcher is not in use)");
}

/* Detach through libxdp, alone or from under the dispatcher: 0 or -errno. */
static int
detach_program(int ifindex, struct xdp_program *prog, enum xdp_attach_mode mode)
{
	struct libxdp_call call;
	int ret;

	libxdp_call_begin(ifindex, &call);
	ret = xdp_program__detach(prog, ifindex, mode, 0);
	libxdp_call_end(&call);
	return ret;
}

static bool
is_builtin_name(const char *name)
{
	return strcmp(name, PROG_MAP_NAME) == 0 || strcmp(name, PROG_DIRECT_NAME) == 0;
}

/*
 * Program `id`, if it is a copy of a built-in program (by its name and its
 * owner mark): its descriptor, name and owner; -ENOENT if it is not one.
 */
static int
open_builtin_copy(uint32_t id, char name[BPF_OBJ_NAME_LEN], struct af_xdp_owner *owner)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0 || !is_builtin_name(info.name) ||
	    af_xdp_owner_read(fd, owner) != 0) {
		close(fd);
		return -ENOENT;
	}
	strlcpy(name, info.name, BPF_OBJ_NAME_LEN);
	return fd;
}

/* Remove the copy `fd` of a built-in program from the interface. */
static int
detach_copy(int ifindex, int fd)
{
	struct xdp_program *prog = xdp_program__from_fd(fd);
	int ret;

	if (libxdp_get_error(prog))
		return (int)libxdp_get_error(prog);
	ret = detach_program(ifindex, prog, XDP_MODE_UNSPEC);
	xdp_program__close(prog);
	return ret;
}

/*
 * A process killed before it could detach (SIGKILL, OOM) leaves its
 * built-in program on the interface, attached alone or under libxdp's
 * dispatcher.  Remove those whose owner no longer exists, and say so;
 * programs of running processes, and everyone else's, stay.
 */
static void
remove_orphans(const struct af_xdp_port *port)
{
	struct af_xdp_owner owner;
	char name[BPF_OBJ_NAME_LEN];
	struct prog_ids ids;
	char who[192];
	unsigned int i;
	int fd, ret;

	find_iface_programs(port->ifindex, &ids);
	for (i = 0; i < ids.n; i++) {
		fd = open_builtin_copy(ids.id[i], name, &owner);
		if (fd < 0)
			continue;
		if (af_xdp_owner_state(&owner) == AF_XDP_OWNER_GONE) {
			af_xdp_owner_describe(&owner, AF_XDP_OWNER_GONE, who, sizeof(who));
			ret = detach_copy(port->ifindex, fd);
			if (ret == 0)
				AF_XDP_PORT_LOG(NOTICE, port,
						"removed the orphaned XDP program %s (id %u) from %s: %s loaded it in %s; ours replaces it",
						name, ids.id[i], port->args.iface, AF_XDP_PROJECT, who);
			else
				AF_XDP_PORT_LOG(WARNING, port,
						"cannot remove the orphaned XDP program %s (id %u) from %s, loaded in %s: %s",
						name, ids.id[i], port->args.iface, who,
						lib_strerror(ret));
		}
		close(fd);
	}
}

/* The attach failed on a copy of ours that a process attached alone. */
static void
explain_attached_copy(const struct af_xdp_port *port, int err, uint32_t id, const char *name,
		      const struct af_xdp_owner *owner)
{
	enum af_xdp_owner_state state = af_xdp_owner_state(owner);
	const char *iface = port->args.iface;
	char who[192];

	af_xdp_owner_describe(owner, state, who, sizeof(who));
	if (state == AF_XDP_OWNER_RUNNING)
		AF_XDP_PORT_LOG(ERR, port,
				"cannot attach the XDP program to %s: %s; %s's XDP program %s (id %u) is attached there alone (libxdp's dispatcher is not in use) by %s, and steers frames to that process's sockets only. Stop that process first, or give this one another interface",
				iface, lib_strerror(err), AF_XDP_PROJECT, name, id, who);
	else
		AF_XDP_PORT_LOG(ERR, port,
				"cannot attach the XDP program to %s: %s; %s's XDP program %s (id %u) is attached there, by %s. %s: ip link set dev %s xdp off",
				iface, lib_strerror(err), AF_XDP_PROJECT, name, id, who,
				state == AF_XDP_OWNER_GONE ? "Remove it" :
				"If that process no longer runs, remove the program", iface);
}

/* Say why an attach failed, with what is in the way if anything. */
static void
explain_attach_failure(const struct af_xdp_port *port, int err)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	const char *iface = port->args.iface;
	char name[BPF_OBJ_NAME_LEN];
	struct af_xdp_owner owner;
	int fd;

	if (bpf_xdp_query(port->ifindex, 0, &q) == 0 && q.prog_id != 0) {
		fd = open_builtin_copy(q.prog_id, name, &owner);
		if (fd >= 0) {
			close(fd);
			explain_attached_copy(port, err, q.prog_id, name, &owner);
			return;
		}
		AF_XDP_PORT_LOG(ERR, port,
				"cannot attach the XDP program to %s: %s; XDP program id %u is already attached there and is not managed by libxdp. Remove it (ip link set dev %s xdp off), or reuse it with xdp_prog= or use_pinned_map=1",
				iface, lib_strerror(err), q.prog_id, iface);
		return;
	}
	AF_XDP_PORT_LOG(ERR, port, "cannot attach the XDP program to %s in %s mode: %s%s",
			iface, af_xdp_attach_mode_name(port->args.mode), lib_strerror(err),
			err == -EOPNOTSUPP ? " (the driver lacks this XDP mode: try mode=skb)" :
			err == -EPERM ? " (needs CAP_NET_ADMIN and CAP_BPF: run as root)" : "");
}

/* Our own descriptor of a map: the program's go with the program. */
static int
dup_map_fd(const struct af_xdp_port *port, int fd, const char *what)
{
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (dup >= 0)
		return dup;
	dup = -errno;
	AF_XDP_PORT_LOG(ERR, port, "cannot keep the %s map open: %s", what, strerror(-dup));
	return dup;
}

/* The maps the driver uses, from the program just attached. */
static int
take_maps(struct af_xdp_port *port, struct af_xdp_prog_attachment *att, const char *what)
{
	int fd = find_xskmap(port, att->prog, what);

	if (fd < 0)
		return fd;
	att->xskmap_fd = dup_map_fd(port, fd, XSKMAP_NAME);
	if (att->xskmap_fd < 0)
		return att->xskmap_fd;
	if (port->redirect != AF_XDP_REDIRECT_DIRECT)
		return 0;
	fd = bpf_map__fd(bpf_object__find_map_by_name(att->obj, FALLBACKS_MAP_NAME));
	att->fallbacks_fd = dup_map_fd(port, fd, FALLBACKS_MAP_NAME);
	return att->fallbacks_fd < 0 ? att->fallbacks_fd : 0;
}

static void
close_maps(struct af_xdp_prog_attachment *att)
{
	if (att->xskmap_fd >= 0)
		close(att->xskmap_fd);
	if (att->fallbacks_fd >= 0)
		close(att->fallbacks_fd);
	att->xskmap_fd = -1;
	att->fallbacks_fd = -1;
}

/*
 * Multi-buffer aware: libbpf sets BPF_F_XDP_HAS_FRAGS at load for a program
 * of section xdp.frags (or xdp.frags/...), so before load the section says.
 */
static bool
frags_aware(struct xdp_program *prog)
{
	struct bpf_object *obj = xdp_program__bpf_obj(prog);
	struct bpf_program *bp = obj != NULL ?
		bpf_object__find_program_by_name(obj, xdp_program__name(prog)) : NULL;
	const char *sec = bp != NULL ? bpf_program__section_name(bp) : NULL;

	return xdp_program__xdp_frags_support(prog) ||
	       (bp != NULL && (bpf_program__flags(bp) & BPF_F_XDP_HAS_FRAGS)) ||
	       (sec != NULL && (strcmp(sec, "xdp.frags") == 0 ||
				strncmp(sec, "xdp.frags/", strlen("xdp.frags/")) == 0));
}

/*
 * A program that is not multi-buffer aware cannot run on an interface whose
 * frames do not fit one page: the kernel refuses it (veth: its peer's MTU),
 * or would have to drop such frames.  Say so rather than let the attach fail
 * with EINVAL or ERANGE.
 */
static int
check_frags_support(const struct af_xdp_port *port, const struct af_xdp_prog_attachment *att)
{
	uint32_t page_frame = (uint32_t)sysconf(_SC_PAGESIZE) - AF_XDP_PACKET_HEADROOM;
	unsigned int mtu;

	/* The built-in programs are (SEC("xdp.frags")). */
	if (att->origin != PROG_USER || frags_aware(att->prog) ||
	    af_xdp_iface_mtu(port->args.iface, &mtu) != 0 || mtu + RTE_ETHER_HDR_LEN <= page_frame)
		return 0;
	AF_XDP_PORT_LOG(ERR, port,
			"%s=%s is not multi-buffer aware (not SEC(\"xdp.frags\")), but %s has MTU %u, above the %u that one page holds: the kernel cannot run it there; build it with SEC(\"xdp.frags\") or lower the MTU",
			AF_XDP_ARG_XDP_PROG, port->args.xdp_prog, port->args.iface, mtu,
			page_frame - RTE_ETHER_HDR_LEN);
	return -EINVAL;
}

static int
attach_program(struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	const char *what = att->origin == PROG_USER ? port->args.xdp_prog : "the built-in program";
	struct libxdp_call call;
	int ret;

	ret = att->origin == PROG_USER ? open_user_program(port, att) :
	      open_builtin_program(port, att);
	if (ret != 0)
		return ret;
	ret = check_frags_support(port, att);
	if (ret != 0) {
		close_program(att);
		return ret;
	}
	remove_orphans(port);
	libxdp_call_begin(port->ifindex, &call);
	ret = xdp_program__attach(att->prog, port->ifindex, libxdp_mode(port->args.mode), 0);
	libxdp_call_end(&call);
	if (ret != 0) {
		explain_attach_failure(port, ret);
		close_program(att);
		return ret;
	}
	note_attachment(port, att);
	ret = take_maps(port, att, what);
	if (ret != 0) {
		/* Nothing of ours stays on the interface or open in the process. */
		close_maps(att);
		detach_program(port->ifindex, att->prog, att->mode);
		close_program(att);
	}
	return ret;
}

static int
open_external_map(struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	int fd, ret;

	if (att->origin == PROG_CNI) {
		/* A negative errno, its cause logged. */
		fd = af_xdp_cni_get_xskmap(port);
		if (fd < 0)
			return fd;
	} else {
		fd = bpf_obj_get(port->args.dp_path);
		if (fd < 0) {
			ret = -errno;
			AF_XDP_PORT_LOG(ERR, port,
					"cannot open the pinned XSKMAP %s=%s: %s (is bpffs mounted and the map pinned?)",
					AF_XDP_ARG_DP_PATH, port->args.dp_path, strerror(-ret));
			return ret;
		}
	}
	ret = check_xskmap(port, fd, port->args.dp_path);
	if (ret != 0) {
		close(fd);
		return ret;
	}
	att->xskmap_fd = fd;
	AF_XDP_PORT_LOG(INFO, port, "using the XSKMAP from %s (%s); its XDP program is not ours",
			port->args.dp_path, origin_names[att->origin]);
	return 0;
}

static struct af_xdp_prog_attachment *
find_attachment(int ifindex)
{
	struct af_xdp_prog_attachment *att;

	TAILQ_FOREACH(att, &attachments, next)
		if (att->ifindex == ifindex)
			return att;
	return NULL;
}

static int
join_attachment(struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	if (att->origin != port_origin(port) || strcmp(att->source, port_source(port)) != 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"%s already carries a %s XDP program%s%s from another port of this process; ports on one interface must use the same program",
				port->args.iface, origin_names[att->origin],
				att->source[0] ? " " : "", att->source);
		return -EBUSY;
	}
	att->users++;
	return 0;
}

int
af_xdp_prog_attach(struct af_xdp_port *port)
{
	struct af_xdp_prog_attachment *att;
	int ret;

	route_library_logs();
	pthread_mutex_lock(&attach_lock);
	att = find_attachment(port->ifindex);
	if (att != NULL) {
		ret = join_attachment(port, att);
		goto out;
	}

	att = rte_zmalloc("af_xdp_prog", sizeof(*att), 0);
	if (att == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	att->ifindex = port->ifindex;
	att->origin = port_origin(port);
	strlcpy(att->source, port_source(port), sizeof(att->source));
	att->xskmap_fd = -1;
	att->fallbacks_fd = -1;
	att->users = 1;
	if (att->origin == PROG_BUILTIN || att->origin == PROG_USER)
		ret = attach_program(port, att);
	else
		ret = open_external_map(port, att);
	if (ret != 0) {
		rte_free(att);
		goto out;
	}
	TAILQ_INSERT_TAIL(&attachments, att, next);
out:
	if (ret == 0) {
		port->prog = att;
		port->xskmap_fd = att->xskmap_fd;
	}
	pthread_mutex_unlock(&attach_lock);
	return ret;
}

static void
log_detached(const struct af_xdp_port *port, const struct af_xdp_prog_attachment *att, int ret)
{
	char name[IF_NAMESIZE];

	if (ret == 0)
		AF_XDP_PORT_LOG(INFO, port, "XDP program detached from %s", port->args.iface);
	else if (ret == -ENOENT && if_indextoname((unsigned int)att->ifindex, name) == NULL)
		AF_XDP_PORT_LOG(INFO, port, "%s no longer exists: its XDP program went with it",
				port->args.iface);
	else if (ret == -ENOENT)
		AF_XDP_PORT_LOG(WARNING, port,
				"our XDP program id %u was no longer on %s: someone else removed or replaced it",
				xdp_program__id(att->prog), port->args.iface);
	else
		AF_XDP_PORT_LOG(WARNING, port,
				"cannot detach XDP program id %u from %s: %s; remove it with: ip link set dev %s xdp off",
				xdp_program__id(att->prog), port->args.iface, lib_strerror(ret),
				port->args.iface);
}

void
af_xdp_prog_detach(struct af_xdp_port *port)
{
	struct af_xdp_prog_attachment *att = port->prog;
	int ret;

	if (att == NULL)
		return;
	pthread_mutex_lock(&attach_lock);
	port->prog = NULL;
	port->xskmap_fd = -1;
	if (--att->users != 0) {
		pthread_mutex_unlock(&attach_lock);
		return;
	}
	TAILQ_REMOVE(&attachments, att, next);

	if (att->prog != NULL) {
		/* Removes only our program: libxdp leaves others (and theirs) in place. */
		ret = detach_program(att->ifindex, att->prog, att->mode);
		log_detached(port, att, ret);
		close_program(att);
	}
	pthread_mutex_unlock(&attach_lock);
	close_maps(att);
	rte_free(att);
}

int
af_xdp_prog_fallbacks_fd(const struct af_xdp_port *port)
{
	return port->prog != NULL ? port->prog->fallbacks_fd : -1;
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

int
af_xdp_prog_add_socket(struct af_xdp_port *port, uint32_t netdev_queue, int fd)
{
	int err;

	if (bpf_map_update_elem(port->xskmap_fd, &netdev_queue, &fd, 0) == 0)
		return 0;
	err = errno;
	AF_XDP_PORT_LOG(ERR, port, "cannot insert the socket of queue %u into the XSKMAP: %s",
			netdev_queue, strerror(err));
	return -err;
}

void
af_xdp_prog_remove_socket(struct af_xdp_port *port, uint32_t netdev_queue)
{
	if (port->xskmap_fd >= 0)
		(void)bpf_map_delete_elem(port->xskmap_fd, &netdev_queue);
}
