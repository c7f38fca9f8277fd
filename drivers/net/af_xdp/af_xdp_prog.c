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
 */

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

#include "af_xdp.h"
#include "af_xdp_kernel.h"

#define XSKMAP_NAME "xsks_map"
#define FALLBACKS_MAP_NAME "afxdp_fallbacks"
#define PROG_MAP_NAME "afxdp_map"
#define PROG_DIRECT_NAME "afxdp_direct"
#define ACTION_VAR_NAME "xdp_redirect_xsk_action"
/* The helper number compiled into afxdp_direct's call, replaced at load. */
#define REDIRECT_XSK_PLACEHOLDER 0x7fffa5a5

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
 * an XSKMAP, map is as fast as direct (within 1 % in our measurement) and
 * keeps the map's semantics, so map; otherwise direct where the kernel has
 * it, map elsewhere.
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
		AF_XDP_PORT_LOG(ERR, port, "cannot inspect the map from %s: %s", what,
				strerror(errno));
		return -errno;
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

/* Say why an attach failed, with what is in the way if anything. */
static void
explain_attach_failure(const struct af_xdp_port *port, int err)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	const char *iface = port->args.iface;

	if (bpf_xdp_query(port->ifindex, 0, &q) == 0 && q.prog_id != 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"cannot attach the XDP program to %s: %s; XDP program id %u is already attached there and is not managed by libxdp. Remove it (ip link set dev %s xdp off), or reuse it with xdp_prog= or use_pinned_map=1",
				iface, strerror(-err), q.prog_id, iface);
		return;
	}
	AF_XDP_PORT_LOG(ERR, port, "cannot attach the XDP program to %s in %s mode: %s%s",
			iface, af_xdp_attach_mode_name(port->args.mode), strerror(-err),
			err == -EOPNOTSUPP ? " (the driver lacks this XDP mode: try mode=skb)" :
			err == -EPERM ? " (needs CAP_NET_ADMIN and CAP_BPF: run as root)" : "");
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
		    insns[i].imm == REDIRECT_XSK_PLACEHOLDER) {
			insns[i].imm = helper;
			patched++;
		}
	}
	ret = patched == 1 ? bpf_program__set_insns(prog, insns, n) : -ENOENT;
	free(insns);
	return ret;
}

/* Set the u32 global `name` of the object's .rodata before load. */
static int
set_rodata_u32(struct bpf_object *obj, const char *name, uint32_t value)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	struct bpf_map *map;
	const void *init;
	size_t size;
	void *data;
	int id, i, ret = -ENOENT;

	id = btf != NULL ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (id < 0)
		return -ENOENT;
	bpf_object__for_each_map(map, obj)
		if (bpf_map__is_internal(map) && strstr(bpf_map__name(map), ".rodata") != NULL)
			break;
	init = map != NULL ? bpf_map__initial_value(map, &size) : NULL;
	if (init == NULL)
		return -ENOENT;
	sec = btf__type_by_id(btf, (uint32_t)id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, var->name_off), name) != 0 ||
		    vs->size != sizeof(value) || vs->offset + sizeof(value) > size)
			continue;
		data = malloc(size);
		if (data == NULL)
			return -ENOMEM;
		memcpy(data, init, size);
		memcpy((char *)data + vs->offset, &value, sizeof(value));
		ret = bpf_map__set_initial_value(map, data, size);
		free(data);
		break;
	}
	return ret;
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
	struct bpf_program *chosen, *other;
	struct bpf_map *xskmap, *fallbacks;
	struct xdp_program *prog;
	struct bpf_object *obj;

	obj = bpf_object__open_mem(af_xdp_bpf_obj, af_xdp_bpf_obj_len, &opts);
	if (obj == NULL) {
		AF_XDP_PORT_LOG(ERR, port, "cannot open the built-in XDP object: %s",
				strerror(errno));
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
	    (direct && set_rodata_u32(obj, ACTION_VAR_NAME,
				      (uint32_t)port->redirect_xsk_action) != 0)) {
		AF_XDP_PORT_LOG(ERR, port, "cannot prepare the built-in XDP program %s", name);
		bpf_object__close(obj);
		return -EINVAL;
	}
	xopts.obj = obj;
	prog = xdp_program__create(&xopts);
	if (libxdp_get_error(prog)) {
		AF_XDP_PORT_LOG(ERR, port, "libxdp refused the built-in program %s: %s", name,
				strerror(-(int)libxdp_get_error(prog)));
		bpf_object__close(obj);
		return -EINVAL;
	}
	att->prog = prog;
	att->obj = obj;
	return 0;
}

static int
open_user_program(const struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	struct xdp_program *prog = xdp_program__open_file(port->args.xdp_prog, NULL, NULL);

	if (libxdp_get_error(prog)) {
		AF_XDP_PORT_LOG(ERR, port, "cannot open %s=%s as an XDP object: %s",
				AF_XDP_ARG_XDP_PROG, port->args.xdp_prog,
				strerror(-(int)libxdp_get_error(prog)));
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

static void
log_attached(const struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(port->ifindex);
	bool dispatcher = !libxdp_get_error(mp) && mp != NULL && !xdp_multiprog__is_legacy(mp);

	att->mode = !libxdp_get_error(mp) && mp != NULL ?
		    xdp_multiprog__attach_mode(mp) : XDP_MODE_UNSPEC;
	AF_XDP_PORT_LOG(INFO, port, "XDP program %s (%s, id %u) attached to %s in %s mode, %s",
			xdp_program__name(att->prog), origin_names[att->origin],
			xdp_program__id(att->prog), port->args.iface,
			libxdp_mode_name(att->mode),
			dispatcher ? "under libxdp's dispatcher" :
			"alone (libxdp's dispatcher is not in use)");
	if (!libxdp_get_error(mp))
		xdp_multiprog__close(mp);
}

static int
attach_program(struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	const char *what = att->origin == PROG_USER ? port->args.xdp_prog : "the built-in program";
	int ret;

	ret = att->origin == PROG_USER ? open_user_program(port, att) :
	      open_builtin_program(port, att);
	if (ret != 0)
		return ret;
	ret = xdp_program__attach(att->prog, port->ifindex, libxdp_mode(port->args.mode), 0);
	if (ret != 0) {
		explain_attach_failure(port, ret);
		close_program(att);
		return ret;
	}
	log_attached(port, att);
	ret = find_xskmap(port, att->prog, what);
	if (ret < 0) {
		xdp_program__detach(att->prog, port->ifindex, att->mode, 0);
		close_program(att);
		return ret;
	}
	/* Our own descriptors: the program's go with the program. */
	att->xskmap_fd = fcntl(ret, F_DUPFD_CLOEXEC, 0);
	if (att->xskmap_fd < 0)
		return -errno;
	if (port->redirect == AF_XDP_REDIRECT_DIRECT) {
		struct bpf_map *map = bpf_object__find_map_by_name(att->obj, FALLBACKS_MAP_NAME);

		att->fallbacks_fd = fcntl(bpf_map__fd(map), F_DUPFD_CLOEXEC, 0);
	}
	return 0;
}

static int
open_external_map(struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	int fd, ret;

	if (att->origin == PROG_CNI)
		fd = af_xdp_cni_get_xskmap(port);
	else
		fd = bpf_obj_get(port->args.dp_path);
	if (fd < 0) {
		if (att->origin == PROG_PINNED_MAP)
			AF_XDP_PORT_LOG(ERR, port,
					"cannot open the pinned XSKMAP %s=%s: %s (is bpffs mounted and the map pinned?)",
					AF_XDP_ARG_DP_PATH, port->args.dp_path, strerror(errno));
		return fd < 0 && errno != 0 ? -errno : -EINVAL;
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
	pthread_mutex_unlock(&attach_lock);

	if (att->prog != NULL) {
		/* Removes only our program: libxdp leaves others (and theirs) in place. */
		ret = xdp_program__detach(att->prog, att->ifindex, att->mode, 0);
		if (ret != 0 && ret != -ENOENT)
			AF_XDP_PORT_LOG(WARNING, port,
					"cannot detach XDP program id %u from %s: %s; remove it with: ip link set dev %s xdp off",
					xdp_program__id(att->prog), port->args.iface,
					strerror(-ret), port->args.iface);
		else
			AF_XDP_PORT_LOG(INFO, port, "XDP program detached from %s",
					port->args.iface);
		close_program(att);
	}
	close(att->xskmap_fd);
	if (att->fallbacks_fd >= 0)
		close(att->fallbacks_fd);
	rte_free(att);
}

/* Still used by another port of this process when this one leaves? */
bool
af_xdp_prog_is_last_user(const struct af_xdp_port *port)
{
	return port->prog != NULL && port->prog->users == 1;
}

bool
af_xdp_prog_is_ours(const struct af_xdp_port *port)
{
	return port->prog != NULL && port->prog->prog != NULL;
}

/* The built-in afxdp_direct, which reaches sockets through their queue? */
bool
af_xdp_prog_is_direct(const struct af_xdp_port *port)
{
	return port->prog != NULL && port->prog->origin == PROG_BUILTIN &&
	       port->redirect == AF_XDP_REDIRECT_DIRECT;
}

/* afxdp_direct's counters: -1 when the direct program is not running. */
int
af_xdp_prog_fallbacks_fd(const struct af_xdp_port *port)
{
	return port->prog != NULL ? port->prog->fallbacks_fd : -1;
}

/* Sum afxdp_direct's per-CPU counters, in enum af_xdp_fallback order. */
int
af_xdp_prog_read_fallbacks(int fd, uint64_t counts[AF_XDP_FALLBACK_MAX])
{
	int cpus = libbpf_num_possible_cpus();
	uint64_t per_cpu[RTE_MAX_LCORE];
	uint32_t key;
	int c;

	memset(counts, 0, AF_XDP_FALLBACK_MAX * sizeof(counts[0]));
	if (fd < 0 || cpus <= 0 || cpus > RTE_MAX_LCORE)
		return -EINVAL;
	for (key = 0; key < AF_XDP_FALLBACK_MAX; key++) {
		if (bpf_map_lookup_elem(fd, &key, per_cpu) != 0)
			return -errno;
		for (c = 0; c < cpus; c++)
			counts[key] += per_cpu[c];
	}
	return 0;
}

void
af_xdp_prog_reset_fallbacks(int fd)
{
	uint64_t zeros[RTE_MAX_LCORE] = { 0 };
	uint32_t key;

	for (key = 0; fd >= 0 && key < AF_XDP_FALLBACK_MAX; key++)
		(void)bpf_map_update_elem(fd, &key, zeros, BPF_ANY);
}

int
af_xdp_prog_add_socket(struct af_xdp_port *port, uint32_t netdev_queue, int fd)
{
	if (bpf_map_update_elem(port->xskmap_fd, &netdev_queue, &fd, 0) == 0)
		return 0;
	AF_XDP_PORT_LOG(ERR, port, "cannot insert the socket of queue %u into the XSKMAP: %s",
			netdev_queue, strerror(errno));
	return -errno;
}

void
af_xdp_prog_remove_socket(struct af_xdp_port *port, uint32_t netdev_queue)
{
	if (port->xskmap_fd >= 0)
		(void)bpf_map_delete_elem(port->xskmap_fd, &netdev_queue);
}
