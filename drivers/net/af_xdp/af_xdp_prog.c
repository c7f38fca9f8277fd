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
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "af_xdp.h"

#define XSKMAP_NAME "xsks_map"

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
	enum xdp_attach_mode mode;
	int xskmap_fd;
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

static int
libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return lib_print(level == LIBXDP_WARN ? RTE_LOG_WARNING :
			 level == LIBXDP_INFO ? RTE_LOG_INFO : RTE_LOG_DEBUG, fmt, ap);
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

static const char *
port_source(const struct af_xdp_port *port)
{
	switch (port_origin(port)) {
	case PROG_USER:
		return port->args.xdp_prog;
	case PROG_BUILTIN:
		return "";
	default:
		return port->args.dp_path;
	}
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

static struct xdp_program *
open_builtin_program(const struct af_xdp_port *port)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "af_xdp_direct");
	struct xdp_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;

	obj = bpf_object__open_mem(af_xdp_bpf_obj, af_xdp_bpf_obj_len, &opts);
	if (obj == NULL) {
		AF_XDP_PORT_LOG(ERR, port, "cannot open the built-in XDP object: %s",
				strerror(errno));
		return NULL;
	}
	map = bpf_object__find_map_by_name(obj, XSKMAP_NAME);
	if (map == NULL || bpf_map__set_max_entries(map, xskmap_entries(port)) != 0) {
		AF_XDP_PORT_LOG(ERR, port, "cannot size the XSKMAP of the built-in program");
		bpf_object__close(obj);
		return NULL;
	}
	prog = xdp_program__from_bpf_obj(obj, "xdp");
	if (libxdp_get_error(prog)) {
		AF_XDP_PORT_LOG(ERR, port, "libxdp refused the built-in program: %s",
				strerror(-(int)libxdp_get_error(prog)));
		bpf_object__close(obj);
		return NULL;
	}
	return prog;
}

static struct xdp_program *
open_user_program(const struct af_xdp_port *port)
{
	struct xdp_program *prog = xdp_program__open_file(port->args.xdp_prog, NULL, NULL);

	if (libxdp_get_error(prog)) {
		AF_XDP_PORT_LOG(ERR, port, "cannot open %s=%s as an XDP object: %s",
				AF_XDP_ARG_XDP_PROG, port->args.xdp_prog,
				strerror(-(int)libxdp_get_error(prog)));
		return NULL;
	}
	return prog;
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

	att->prog = att->origin == PROG_USER ? open_user_program(port) :
		    open_builtin_program(port);
	if (att->prog == NULL)
		return -EINVAL;
	ret = xdp_program__attach(att->prog, port->ifindex, libxdp_mode(port->args.mode), 0);
	if (ret != 0) {
		explain_attach_failure(port, ret);
		xdp_program__close(att->prog);
		att->prog = NULL;
		return ret;
	}
	log_attached(port, att);
	ret = find_xskmap(port, att->prog, what);
	if (ret < 0) {
		xdp_program__detach(att->prog, port->ifindex, att->mode, 0);
		xdp_program__close(att->prog);
		att->prog = NULL;
		return ret;
	}
	/* Our own descriptor: the program's may go with the program. */
	att->xskmap_fd = fcntl(ret, F_DUPFD_CLOEXEC, 0);
	return att->xskmap_fd < 0 ? -errno : 0;
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
		xdp_program__close(att->prog);
	}
	close(att->xskmap_fd);
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
