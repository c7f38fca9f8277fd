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
 * each copy carries its owner's mark (af_xdp_orphan.c, af_xdp_owner.c).
 * The built-in program itself is af_xdp_builtin.c's; libxdp's calls go
 * through af_xdp_libxdp.c.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "af_xdp_builtin.h"
#include "af_xdp_cni.h"
#include "af_xdp_iface.h"
#include "af_xdp_libxdp.h"
#include "af_xdp_orphan.h"
#include "af_xdp_prog.h"
#include "af_xdp_rx_offload.h"

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
	char source[PATH_MAX];		/* xdp_prog, dp_path, or the built-in program's name */
	struct xdp_program *prog;	/* NULL when not attached by us */
	struct bpf_object *obj;		/* the built-in object, which libxdp does not own */
	enum xdp_attach_mode mode;
	int xskmap_fd;
	int fallbacks_fd;		/* afxdp_direct's counters, -1 otherwise */
	/* The built-in program's: its redirect, the Rx metadata it writes. */
	enum af_xdp_redirect redirect;
	uint32_t rx_meta;
};

static TAILQ_HEAD(, af_xdp_prog_attachment) attachments =
	TAILQ_HEAD_INITIALIZER(attachments);
static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;

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
		return af_xdp_builtin_name(port);
	default:
		return port->args.dp_path;
	}
}

/*
 * Resolve redirect=auto|direct|map against the running kernel, at probe.
 * Only the built-in program has a choice (af_xdp_builtin.c); with the
 * user's or someone else's program, port->redirect stays AUTO, meaning
 * "not ours to say".
 */
int
af_xdp_prog_choose_redirect(struct af_xdp_port *port)
{
	port->redirect = AF_XDP_REDIRECT_AUTO;
	if (port_origin(port) != PROG_BUILTIN)
		return 0;
	return af_xdp_builtin_choose_redirect(port);
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

/* The built-in program's object is ours (att->obj): libxdp may not hold it. */
static int
find_xskmap(const struct af_xdp_port *port, struct af_xdp_prog_attachment *att, const char *what)
{
	struct bpf_object *obj = att->obj != NULL ? att->obj : xdp_program__bpf_obj(att->prog);
	struct bpf_map *map = obj != NULL ?
		bpf_object__find_map_by_name(obj, AF_XDP_XSKMAP_NAME) : NULL;

	if (map == NULL || bpf_map__fd(map) < 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"%s has no XSKMAP named %s: the sockets are inserted there, at the queue index",
				what, AF_XDP_XSKMAP_NAME);
		return -ENOENT;
	}
	return bpf_map__fd(map);
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
				af_xdp_lib_strerror((int)libxdp_get_error(prog)));
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
	int fd = find_xskmap(port, att, what);

	if (fd < 0)
		return fd;
	att->xskmap_fd = dup_map_fd(port, fd, AF_XDP_XSKMAP_NAME);
	if (att->xskmap_fd < 0)
		return att->xskmap_fd;
	if (port->redirect != AF_XDP_REDIRECT_DIRECT)
		return 0;
	fd = af_xdp_builtin_fallbacks_fd(att->obj);
	att->fallbacks_fd = dup_map_fd(port, fd, AF_XDP_FALLBACKS_MAP_NAME);
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
	const uint32_t page_frame = port->frame.sys.page_frame;
	unsigned int mtu;

	/* The built-in programs are (SEC("xdp.frags")). */
	if (att->origin != PROG_USER || frags_aware(att->prog) ||
	    af_xdp_iface_mtu(port->args.iface, &mtu) != 0 || af_xdp_frame_of_mtu(mtu) <= page_frame)
		return 0;
	AF_XDP_PORT_LOG(ERR, port,
			"%s=%s is not multi-buffer aware (not SEC(\"xdp.frags\")), but %s has MTU %u, above the %u that one page holds: the kernel cannot run it there; build it with SEC(\"xdp.frags\") or lower the MTU",
			AF_XDP_ARG_XDP_PROG, port->args.xdp_prog, port->args.iface, mtu,
			page_frame - RTE_ETHER_HDR_LEN);
	return -EINVAL;
}

/*
 * The program on the interface: ours bound to it where the port's Rx
 * offloads need the metadata, through libxdp otherwise.  A port whose RSS
 * mode alone wanted the metadata (the hash) goes on without it rather than
 * not start: attach_program() tries once more with the plain one.
 */
static int
attach_opened(struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	if (att->origin == PROG_BUILTIN && port->rx_meta != 0)
		return af_xdp_rx_offload_attach(port, att->obj, af_xdp_builtin_name(port),
						&att->prog);
	return af_xdp_libxdp_attach(att->prog, port->ifindex, libxdp_mode(port->args.mode));
}

static int
attach_program(struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	const char *what = att->origin == PROG_USER ? port->args.xdp_prog : "the built-in program";
	int ret;

	ret = att->origin == PROG_USER ? open_user_program(port, att) :
	      af_xdp_builtin_open(port, &att->prog, &att->obj);
	if (ret != 0)
		return ret;
	ret = check_frags_support(port, att);
	if (ret != 0) {
		close_program(att);
		return ret;
	}
	af_xdp_orphan_remove(port);
	ret = attach_opened(port, att);
	if (ret != 0 && att->origin == PROG_BUILTIN && af_xdp_rx_offload_only_implied(port)) {
		/* Said by the bound attach; once more without the metadata. */
		close_program(att);
		port->rx_meta = 0;
		return attach_program(port, att);
	}
	if (ret != 0) {
		af_xdp_orphan_explain_attach(port, ret);
		close_program(att);
		return ret;
	}
	note_attachment(port, att);
	ret = take_maps(port, att, what);
	if (ret != 0) {
		/* Nothing of ours stays on the interface or open in the process. */
		close_maps(att);
		af_xdp_libxdp_detach(att->prog, port->ifindex, att->mode);
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

/*
 * A port joining the built-in program another port of the process attached
 * gets the Rx metadata that program writes: what the port's offloads ask
 * for must be among it; the hash its RSS mode only implied, or the VLAN tags
 * put back, it goes without.  And the program must not strip what the port
 * did not ask to be stripped: a program that takes VLAN tags out of the
 * frames into the metadata (VLAN_STRIP of the port that attached it) would
 * leave a port without VLAN_STRIP with neither the tag in the bytes nor in
 * vlan_tci.
 */
static int
join_rx_meta(struct af_xdp_port *port, const struct af_xdp_prog_attachment *att)
{
	uint32_t asked = port->rx_meta & ~port->rx_meta_implied;

	if ((asked & ~att->rx_meta) != 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"Rx offloads %s need the built-in program on %s to write them, but another port of this process attached it writing %s; give the ports on one interface the same Rx offloads",
				af_xdp_rx_meta_names(asked), port->args.iface,
				af_xdp_rx_meta_names(att->rx_meta));
		return -EBUSY;
	}
	if ((att->rx_meta & ~port->rx_meta & AF_XDP_RX_META_VLAN) != 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"the built-in program on %s strips VLAN tags (VLAN_STRIP of another port of this process), and this port does not ask for VLAN_STRIP: its frames would lose their tags; give the ports on one interface the same VLAN_STRIP",
				port->args.iface);
		return -EBUSY;
	}
	if ((port->rx_meta & ~att->rx_meta & AF_XDP_RX_META_HASH) != 0)
		AF_XDP_PORT_LOG(NOTICE, port,
				"RSS configured, but no RSS hash in the mbufs: the built-in program another port of this process attached on %s does not write it",
				port->args.iface);
	port->rx_meta &= att->rx_meta;
	return 0;
}

static bool
same_program(const struct af_xdp_port *port, const struct af_xdp_prog_attachment *att)
{
	if (att->origin != port_origin(port))
		return false;
	/* Which of the built-in programs: its redirect; its metadata is join_rx_meta()'s. */
	if (att->origin == PROG_BUILTIN)
		return att->redirect == port->redirect;
	return strcmp(att->source, port_source(port)) == 0;
}

static int
join_attachment(struct af_xdp_port *port, struct af_xdp_prog_attachment *att)
{
	if (!same_program(port, att)) {
		AF_XDP_PORT_LOG(ERR, port,
				"%s already carries a %s XDP program%s%s from another port of this process; ports on one interface must use the same program",
				port->args.iface, origin_names[att->origin],
				att->source[0] ? " " : "", att->source);
		return -EBUSY;
	}
	if (att->origin == PROG_BUILTIN && join_rx_meta(port, att) != 0)
		return -EBUSY;
	att->users++;
	return 0;
}

int
af_xdp_prog_attach(struct af_xdp_port *port)
{
	struct af_xdp_prog_attachment *att;
	int ret;

	af_xdp_libxdp_route_logs();
	/* What the configuration needs, again at each start: attach_program() may give some up. */
	port->rx_meta = port->rx_meta_conf;
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
	/* As attached: the built-in program's name says whether it writes metadata. */
	strlcpy(att->source, port_source(port), sizeof(att->source));
	att->redirect = port->redirect;
	att->rx_meta = port->rx_meta;
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
				xdp_program__id(att->prog), port->args.iface, af_xdp_lib_strerror(ret),
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
		ret = af_xdp_libxdp_detach(att->prog, att->ifindex, att->mode);
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
