/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Copies of the built-in program that other processes left on an
 * interface, told apart by their owner mark (af_xdp_owner.c): those whose
 * owner no longer exists are removed before an attach; one in the way of
 * a failed attach is named, with its owner, in the error.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <rte_string_fns.h>

#include "af_xdp_builtin.h"
#include "af_xdp_libxdp.h"
#include "af_xdp_orphan.h"
#include "af_xdp_owner.h"

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
	if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0 || !af_xdp_builtin_has_name(info.name) ||
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
	ret = af_xdp_libxdp_detach(prog, ifindex, XDP_MODE_UNSPEC);
	xdp_program__close(prog);
	return ret;
}

void
af_xdp_orphan_remove(const struct af_xdp_port *port)
{
	struct af_xdp_owner owner;
	char name[BPF_OBJ_NAME_LEN];
	struct af_xdp_prog_ids ids;
	char who[192];
	unsigned int i;
	int fd, ret;

	af_xdp_libxdp_iface_programs(port->ifindex, &ids);
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
						af_xdp_lib_strerror(ret));
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
				iface, af_xdp_lib_strerror(err), AF_XDP_PROJECT, name, id, who);
	else
		AF_XDP_PORT_LOG(ERR, port,
				"cannot attach the XDP program to %s: %s; %s's XDP program %s (id %u) is attached there, by %s. %s: ip link set dev %s xdp off",
				iface, af_xdp_lib_strerror(err), AF_XDP_PROJECT, name, id, who,
				state == AF_XDP_OWNER_GONE ? "Remove it" :
				"If that process no longer runs, remove the program", iface);
}

void
af_xdp_orphan_explain_attach(const struct af_xdp_port *port, int err)
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
				iface, af_xdp_lib_strerror(err), q.prog_id, iface);
		return;
	}
	AF_XDP_PORT_LOG(ERR, port, "cannot attach the XDP program to %s in %s mode: %s%s",
			iface, af_xdp_attach_mode_name(port->args.mode), af_xdp_lib_strerror(err),
			err == -EOPNOTSUPP ? " (the driver lacks this XDP mode: try mode=skb)" :
			err == -EPERM ? " (needs CAP_NET_ADMIN and CAP_BPF: run as root)" : "");
}
