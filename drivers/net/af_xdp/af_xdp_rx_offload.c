/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Rx offloads from the kernel's XDP metadata functions (6.8+ for all of
 * them: bpf_xdp_metadata_rx_hash came in 6.3, _rx_vlan_tag in 6.8): what a
 * port can offer, and the device-bound program that fetches the values.
 *
 * A device-bound program runs only in native mode and only alone: libxdp
 * 1.3.1 cannot load its dispatcher bound to a device (1.6.0 can), and an
 * extension program inherits its target's binding.  So a port with Rx
 * offloads attaches the program with libbpf, in native mode, and only where
 * the interface has no XDP program yet: it never replaces or joins someone
 * else's (nor libxdp's dispatcher, nor a program of ours that another
 * process attached).  Without the offloads the port keeps the plain
 * programs under libxdp, shared with other users.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_link.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "af_xdp_bpf_abi.h"
#include "af_xdp_libxdp.h"
#include "af_xdp_rx_offload.h"

/* Whether the running kernel has both metadata functions, asked of its BTF once. */
static bool
kernel_has_kfuncs(void)
{
	static int has = -1;
	struct btf *btf;

	if (has >= 0)
		return has;
	btf = btf__load_vmlinux_btf();
	has = btf != NULL &&
	      btf__find_by_name_kind(btf, "bpf_xdp_metadata_rx_hash", BTF_KIND_FUNC) > 0 &&
	      btf__find_by_name_kind(btf, "bpf_xdp_metadata_rx_vlan_tag", BTF_KIND_FUNC) > 0;
	btf__free(btf);
	return has;
}

uint64_t
af_xdp_rx_offload_capa(const struct af_xdp_port *port, const char **why)
{
	const struct af_xdp_devargs *a = &port->args;

	if (a->xdp_prog[0] != '\0' || a->use_cni || a->use_pinned_map) {
		*why = "not-built-in";		/* no program of ours writes the values */
		return 0;
	}
	if (a->mode == AF_XDP_ATTACH_SKB || a->mode == AF_XDP_ATTACH_HW) {
		*why = "not-native-mode";	/* device-bound programs are native only */
		return 0;
	}
	if (!kernel_has_kfuncs()) {
		*why = "kernel-lacks-kfuncs";
		return 0;
	}
	*why = "kfuncs";
	return AF_XDP_RX_META_OFFLOADS;
}

uint32_t
af_xdp_rx_meta_want(uint64_t offloads)
{
	return ((offloads & RTE_ETH_RX_OFFLOAD_RSS_HASH) ? AF_XDP_RX_META_HASH : 0) |
	       ((offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) ? AF_XDP_RX_META_VLAN : 0);
}

uint64_t
af_xdp_rx_meta_ol_flags(uint32_t want)
{
	return ((want & AF_XDP_RX_META_HASH) ? RTE_MBUF_F_RX_RSS_HASH : 0) |
	       ((want & AF_XDP_RX_META_VLAN) ?
		RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED : 0);
}

const char *
af_xdp_rx_meta_names(uint32_t want)
{
	switch (want & (AF_XDP_RX_META_HASH | AF_XDP_RX_META_VLAN)) {
	case AF_XDP_RX_META_HASH:
		return "rss_hash";
	case AF_XDP_RX_META_VLAN:
		return "vlan_strip";
	case AF_XDP_RX_META_HASH | AF_XDP_RX_META_VLAN:
		return "rss_hash,vlan_strip";
	default:
		return "none";
	}
}

/* Why the attach failed, in words the user can act on. */
static void
explain_attach(const struct af_xdp_port *port, const char *name, int err)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	uint32_t id = 0;

	if (bpf_xdp_query(port->ifindex, 0, &q) == 0)
		id = q.drv_prog_id != 0 ? q.drv_prog_id : q.skb_prog_id;
	if (err == -EBUSY || err == -EEXIST)
		AF_XDP_PORT_LOG(ERR, port,
				"Rx offloads %s need the built-in program %s bound to %s and attached alone in native mode, but %s already carries XDP program id %u (another program, or libxdp's dispatcher, which cannot run a device-bound program before libxdp 1.6); remove it, or do not ask for these Rx offloads",
				af_xdp_rx_meta_names(port->rx_meta), name, port->args.iface,
				port->args.iface, id);
	else
		AF_XDP_PORT_LOG(ERR, port,
				"Rx offloads %s: cannot attach the built-in program %s bound to %s in native mode: %s (an interface without native XDP has no metadata functions); do not ask for these Rx offloads here",
				af_xdp_rx_meta_names(port->rx_meta), name, port->args.iface,
				af_xdp_lib_strerror(err));
}

/* Detach the program fd just attached, and nothing that replaced it since. */
static void
detach_own(const struct af_xdp_port *port, int fd)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = fd);

	(void)bpf_xdp_attach(port->ifindex, -1, XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE, &opts);
}

int
af_xdp_rx_offload_attach(const struct af_xdp_port *port, struct bpf_object *obj,
			 const char *name, struct xdp_program **progp)
{
	struct bpf_program *bp = bpf_object__find_program_by_name(obj, name);
	struct xdp_program *prog;
	int ret, fd, dup;

	if (bp == NULL)
		return -ENOENT;
	ret = bpf_object__load(obj);
	if (ret != 0) {
		AF_XDP_PORT_LOG(ERR, port,
				"Rx offloads %s: the kernel refused the built-in program %s bound to %s: %s",
				af_xdp_rx_meta_names(port->rx_meta), name, port->args.iface,
				af_xdp_lib_strerror(ret));
		return ret;
	}
	fd = bpf_program__fd(bp);
	/* Never over a program already there: not ours to replace. */
	ret = bpf_xdp_attach(port->ifindex, fd, XDP_FLAGS_DRV_MODE | XDP_FLAGS_UPDATE_IF_NOEXIST,
			     NULL);
	if (ret != 0) {
		explain_attach(port, name, ret);
		return ret;
	}
	/* libxdp's own descriptor: it closes it with the program, and the object closes its own. */
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	prog = dup >= 0 ? xdp_program__from_fd(dup) : NULL;
	if (prog == NULL || libxdp_get_error(prog)) {
		ret = dup < 0 ? -errno : (int)libxdp_get_error(prog);
		if (dup >= 0 && prog == NULL)
			close(dup);
		detach_own(port, fd);
		AF_XDP_PORT_LOG(ERR, port, "cannot keep the program %s: %s", name,
				af_xdp_lib_strerror(ret));
		return ret != 0 ? ret : -ENOMEM;
	}
	*progp = prog;
	AF_XDP_PORT_LOG(INFO, port,
			"Rx offloads %s: built-in program %s bound to %s, attached alone in native mode",
			af_xdp_rx_meta_names(port->rx_meta), name, port->args.iface);
	return 0;
}
