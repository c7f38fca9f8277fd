/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Rx offloads from the kernel's XDP metadata functions (6.8+ for all of
 * them: bpf_xdp_metadata_rx_hash came in 6.3, _rx_vlan_tag in 6.8): what a
 * port can offer, and the device-bound program that fetches the values;
 * and the Rx checksum offloads, which every port offers (the burst checks
 * IPv4 headers: af_xdp_rx_ipv4_cksum()).
 *
 * What a port offers is what the kernel accepts, not what it advertises:
 * netlink's xdp-rx-metadata-features says which functions the interface
 * implements, and the program that calls them, bound to the interface as
 * the port would run it, is loaded once at probe.  A kernel may list a
 * function and still refuse the program (a verifier that forbids
 * bpf_xdp_adjust_meta, a kernel without the functions in its BTF): then
 * none is offered, so that an application never configures an offload the
 * port then fails to start with.  The state block says what was tried and
 * what the verifier refused.
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
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/if_link.h>

#include <bpf/bpf.h>

#include <rte_errno.h>
#include <rte_mbuf_dyn.h>
#include <rte_string_fns.h>

#include "af_xdp_bpf_abi.h"
#include "af_xdp_builtin.h"
#include "af_xdp_iface.h"
#include "af_xdp_libxdp.h"
#include "af_xdp_rx_offload.h"

/*
 * What the kernel accepted of the Rx-metadata program on one interface:
 * asked by loading the program itself (af_xdp_builtin_try_bound()), once
 * per interface and network namespace (and redirect: afxdp_meta_dir calls
 * a helper of its own), however many ports of the process are on it.
 */
struct meta_probe {
	dev_t netns_dev;
	ino_t netns_ino;
	int ifindex;
	enum af_xdp_redirect redirect;
	uint32_t asked;			/* AF_XDP_RX_META_*: what the interface has */
	uint32_t passed;		/* asked where the program loads, else 0 */
	int err;			/* the load's error, 0 if none */
	char refused[AF_XDP_RX_REFUSED_LEN];	/* and what the verifier named */
};

#define META_PROBES_MAX 32

static struct meta_probe meta_probes[META_PROBES_MAX];
static unsigned int nb_meta_probes;
static pthread_mutex_t meta_probe_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The program fetching what the interface has, loaded once as the port
 * would run it (with the tag's reinsertion, which the port runs when it
 * fetches the tag for nothing else): all of it is offered, or none.  The
 * values are chosen by a constant the verifier folds, so every call of
 * the program is in each choice's instructions: a kernel that refuses one
 * of them (bpf_xdp_adjust_meta, a kernel function missing from its BTF)
 * refuses every choice alike.
 */
static void
probe_meta(const struct af_xdp_port *port, struct meta_probe *p)
{
	uint32_t want = p->asked;

	if (want & AF_XDP_RX_META_VLAN)
		want |= AF_XDP_RX_META_VLAN_INLINE;
	p->err = af_xdp_builtin_try_bound(port, want, p->refused, sizeof(p->refused));
	p->passed = p->err == 0 ? p->asked : 0;
	if (p->err != 0)
		AF_XDP_PORT_LOG(NOTICE, port,
				"Rx offloads: the kernel refuses the built-in program that fetches %s from %s's XDP metadata (%s%s%s): none of them offered",
				af_xdp_rx_meta_names(p->asked), port->args.iface,
				af_xdp_lib_strerror(p->err),
				p->refused[0] != '\0' ? ", the verifier refuses " : "", p->refused);
}

/* The network namespace the process is in: the interface's. */
static void
netns_of_process(dev_t *dev, ino_t *ino)
{
	struct stat st;

	*dev = 0;
	*ino = 0;
	if (stat("/proc/self/ns/net", &st) == 0) {
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
}

/* The answer for asked on the port's interface: probed now, or earlier. */
static struct meta_probe
meta_probe(const struct af_xdp_port *port, uint32_t asked)
{
	struct meta_probe key = { .ifindex = port->ifindex, .redirect = port->redirect,
				  .asked = asked };
	unsigned int i;

	netns_of_process(&key.netns_dev, &key.netns_ino);
	pthread_mutex_lock(&meta_probe_lock);
	for (i = 0; i < nb_meta_probes; i++) {
		const struct meta_probe *p = &meta_probes[i];

		if (p->netns_dev == key.netns_dev && p->netns_ino == key.netns_ino &&
		    p->ifindex == key.ifindex && p->redirect == key.redirect &&
		    p->asked == key.asked) {
			key = *p;
			goto out;
		}
	}
	probe_meta(port, &key);
	/* A full table probes again: the answer is the same, only slower. */
	if (nb_meta_probes < META_PROBES_MAX)
		meta_probes[nb_meta_probes++] = key;
out:
	pthread_mutex_unlock(&meta_probe_lock);
	return key;
}

/* The AF_XDP_RX_META_* values the interface has, netlink says: the stamp is the program's own. */
static uint32_t
iface_meta(const struct af_xdp_netdev_features *f, enum af_xdp_rx_capa_why *why)
{
	uint32_t listed;

	if (!f->xdp_rx_metadata_known) {
		*why = AF_XDP_RX_CAPA_IFACE_UNKNOWN;
		return AF_XDP_RX_META_TIMESTAMP;
	}
	listed = ((f->xdp_rx_metadata & NETDEV_GENL_XDP_RX_METADATA_HASH) ?
		  AF_XDP_RX_META_HASH : 0) |
		 ((f->xdp_rx_metadata & NETDEV_GENL_XDP_RX_METADATA_VLAN_TAG) ?
		  AF_XDP_RX_META_VLAN : 0);
	*why = listed != 0 ? AF_XDP_RX_CAPA_IFACE_KFUNCS : AF_XDP_RX_CAPA_IFACE_LACKS_KFUNCS;
	return listed | AF_XDP_RX_META_TIMESTAMP;
}

/* Why the kernel did not load all of it: its verifier, libbpf, or our privileges. */
static enum af_xdp_rx_capa_why
refusal_why(const struct meta_probe *p)
{
	if (strcmp(p->refused, "unknown") != 0)
		return AF_XDP_RX_CAPA_KERNEL_REFUSED;
	/* libbpf found no kernel function of that name in the kernel's BTF. */
	if (p->err == -ESRCH)
		return AF_XDP_RX_CAPA_KERNEL_LACKS_KFUNCS;
	if (p->err == -EPERM)
		return AF_XDP_RX_CAPA_NOT_PERMITTED;
	return AF_XDP_RX_CAPA_KERNEL_REFUSED;
}

/*
 * The Rx metadata the port can offer (AF_XDP_RX_META_*), or 0, and why:
 * what the interface has, of which what the kernel loads.
 */
static uint32_t
rx_meta_capa(struct af_xdp_port *port, const struct af_xdp_netdev_features *f,
	     enum af_xdp_rx_capa_why *why)
{
	const struct af_xdp_devargs *a = &port->args;
	struct meta_probe p;

	if (a->xdp_prog[0] != '\0' || a->use_cni || a->use_pinned_map) {
		*why = AF_XDP_RX_CAPA_NOT_BUILTIN;
		return 0;
	}
	if (a->mode == AF_XDP_ATTACH_SKB || a->mode == AF_XDP_ATTACH_HW) {
		*why = AF_XDP_RX_CAPA_NOT_NATIVE;
		return 0;
	}
	port->rx_meta_probed = iface_meta(f, why);
	p = meta_probe(port, port->rx_meta_probed);
	if (p.err != 0) {
		*why = refusal_why(&p);
		if (*why == AF_XDP_RX_CAPA_KERNEL_REFUSED)
			strlcpy(port->rx_meta_refused, p.refused, sizeof(port->rx_meta_refused));
	}
	return p.passed;
}

uint64_t
af_xdp_rx_meta_offloads(uint32_t meta)
{
	return ((meta & AF_XDP_RX_META_HASH) ? RTE_ETH_RX_OFFLOAD_RSS_HASH : 0) |
	       ((meta & AF_XDP_RX_META_VLAN) ? RTE_ETH_RX_OFFLOAD_VLAN_STRIP : 0) |
	       ((meta & AF_XDP_RX_META_TIMESTAMP) ? RTE_ETH_RX_OFFLOAD_TIMESTAMP : 0);
}

void
af_xdp_rx_offload_probe(struct af_xdp_port *port, const struct af_xdp_netdev_features *f)
{
	port->rx_meta_probed = 0;
	port->rx_meta_refused[0] = '\0';
	port->rx_meta_capa = af_xdp_rx_meta_offloads(rx_meta_capa(port, f,
								  &port->rx_meta_capa_why));
}

uint64_t
af_xdp_rx_offload_capa(const struct af_xdp_port *port)
{
	return port->rx_meta_capa | AF_XDP_RX_CKSUM_OFFLOADS;
}

const char *
af_xdp_rx_capa_why_name(enum af_xdp_rx_capa_why why)
{
	static const char * const names[] = {
		[AF_XDP_RX_CAPA_IFACE_KFUNCS] = "iface-kfuncs",
		[AF_XDP_RX_CAPA_IFACE_LACKS_KFUNCS] = "iface-lacks-kfuncs",
		[AF_XDP_RX_CAPA_IFACE_UNKNOWN] = "iface-features-unknown",
		[AF_XDP_RX_CAPA_KERNEL_LACKS_KFUNCS] = "kernel-lacks-kfuncs",
		[AF_XDP_RX_CAPA_KERNEL_REFUSED] = "kernel-refused",
		[AF_XDP_RX_CAPA_NOT_PERMITTED] = "not-permitted",
		[AF_XDP_RX_CAPA_NOT_NATIVE] = "not-native-mode",
		[AF_XDP_RX_CAPA_NOT_BUILTIN] = "not-built-in",
	};

	return (unsigned int)why < RTE_DIM(names) ? names[why] : "unknown";
}

uint32_t
af_xdp_rx_meta_want(uint64_t offloads)
{
	return ((offloads & RTE_ETH_RX_OFFLOAD_RSS_HASH) ? AF_XDP_RX_META_HASH : 0) |
	       ((offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) ? AF_XDP_RX_META_VLAN : 0) |
	       ((offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP) ? AF_XDP_RX_META_TIMESTAMP : 0);
}

uint64_t
af_xdp_rx_meta_ol_flags(uint32_t want, uint64_t timestamp_flag)
{
	return ((want & AF_XDP_RX_META_HASH) ? RTE_MBUF_F_RX_RSS_HASH : 0) |
	       ((want & AF_XDP_RX_META_VLAN) ?
		RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED : 0) |
	       ((want & AF_XDP_RX_META_TIMESTAMP) ? timestamp_flag : 0);
}

const char *
af_xdp_rx_meta_names(uint32_t want)
{
	static const char * const names[] = {
		"none", "rss_hash", "vlan_strip", "rss_hash,vlan_strip",
		"timestamp", "rss_hash,timestamp", "vlan_strip,timestamp",
		"rss_hash,vlan_strip,timestamp",
	};

	return names[want & (AF_XDP_RX_META_HASH | AF_XDP_RX_META_VLAN |
			     AF_XDP_RX_META_TIMESTAMP)];
}

/*
 * An application that configures RSS without RTE_ETH_RX_OFFLOAD_RSS_HASH
 * (Open vSwitch 3.1, and most written before DPDK 20.11) still looks for
 * the hash in each mbuf's flags, as NIC PMDs deliver it in RSS mode: so do
 * we, where the interface has it, unless the program cannot be bound.
 */
static uint32_t
rx_hash_implied(const struct af_xdp_port *port, uint32_t asked, bool rss)
{
	if (!rss || (asked & AF_XDP_RX_META_HASH) ||
	    !(port->rx_meta_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH))
		return 0;
	return AF_XDP_RX_META_HASH;
}

/*
 * Where the bound program runs anyway and VLAN_STRIP is not asked, a tag
 * the interface keeps out of the frame (it implements the tag's kfunc) goes
 * back into the frame's bytes, as a NIC without the offload delivers it:
 * the plain program cannot, and the tag would be lost.
 */
static uint32_t
rx_vlan_inline_implied(const struct af_xdp_port *port, uint32_t meta)
{
	if (meta == 0 || (meta & AF_XDP_RX_META_VLAN) ||
	    !(port->rx_meta_capa & RTE_ETH_RX_OFFLOAD_VLAN_STRIP))
		return 0;
	return AF_XDP_RX_META_VLAN_INLINE;
}

int
af_xdp_rx_offload_configure(struct af_xdp_port *port, uint64_t offloads, bool rss)
{
	uint32_t asked = af_xdp_rx_meta_want(offloads);
	int ret;

	port->rx_meta_implied = rx_hash_implied(port, asked, rss);
	port->rx_meta_implied |= rx_vlan_inline_implied(port, asked | port->rx_meta_implied);
	port->rx_meta_conf = asked | port->rx_meta_implied;
	port->rx_meta = port->rx_meta_conf;
	port->rx_cksum = (offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
	port->rx_timestamp_offset = -1;
	port->rx_timestamp_flag = 0;
	if (asked & AF_XDP_RX_META_TIMESTAMP) {
		ret = rte_mbuf_dyn_rx_timestamp_register(&port->rx_timestamp_offset,
							 &port->rx_timestamp_flag);
		if (ret != 0) {
			AF_XDP_PORT_LOG(ERR, port,
					"Rx timestamps: cannot register the timestamp dynamic field: %s",
					rte_strerror(rte_errno));
			port->rx_meta = port->rx_meta_conf = port->rx_meta_implied = 0;
			return -rte_errno;
		}
	}
	if (asked != 0)
		AF_XDP_PORT_LOG(INFO, port,
				"Rx offloads %s: from the XDP metadata of %s, through the built-in program bound to it, which must run alone there (no libxdp dispatcher)",
				af_xdp_rx_meta_names(asked), port->args.iface);
	if (port->rx_meta_implied & AF_XDP_RX_META_HASH)
		AF_XDP_PORT_LOG(INFO, port,
				"RSS configured: each mbuf gets the RSS hash of %s's XDP metadata too (RTE_MBUF_F_RX_RSS_HASH), as with a NIC, where the built-in program can run bound to it, alone",
				port->args.iface);
	return 0;
}

bool
af_xdp_rx_offload_only_implied(const struct af_xdp_port *port)
{
	return port->rx_meta != 0 && (port->rx_meta & ~port->rx_meta_implied) == 0;
}

int
af_xdp_rx_offload_read_clock(struct rte_eth_dev *dev __rte_unused, uint64_t *clock)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_TAI, &ts) != 0)
		return -errno;
	*clock = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return 0;
}

/* Why the attach failed, in words the user can act on. */
static void
explain_attach(const struct af_xdp_port *port, const char *name, int err)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	uint32_t id = 0;

	if (bpf_xdp_query(port->ifindex, 0, &q) == 0)
		id = q.drv_prog_id != 0 ? q.drv_prog_id : q.skb_prog_id;
	if (af_xdp_rx_offload_only_implied(port))
		/* Not asked for: the caller goes on without it. */
		AF_XDP_PORT_LOG(NOTICE, port,
				"RSS configured, but no RSS hash in the mbufs: the built-in program %s cannot run bound to %s (%s; XDP program id %u there): the plain program instead",
				name, port->args.iface, af_xdp_lib_strerror(err), id);
	else if (err == -EBUSY || err == -EEXIST)
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
	int ret, fd;

	if (bp == NULL)
		return -ENOENT;
	ret = bpf_object__load(obj);
	if (ret != 0 && af_xdp_rx_offload_only_implied(port)) {
		AF_XDP_PORT_LOG(NOTICE, port,
				"RSS configured, but no RSS hash in the mbufs: the kernel refused the built-in program %s bound to %s (%s): the plain program instead",
				name, port->args.iface, af_xdp_lib_strerror(ret));
		return ret;
	}
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
	/*
	 * libxdp duplicates the descriptor it is given and closes only its
	 * copy (xdp_program__fill_from_fd(), 1.3.1 to 1.6): fd stays the
	 * object's, which closes it.  A copy of ours would be nobody's.
	 */
	prog = xdp_program__from_fd(fd);
	ret = (int)libxdp_get_error(prog);
	if (prog == NULL || ret != 0) {
		ret = ret != 0 ? ret : -ENOMEM;
		detach_own(port, fd);
		AF_XDP_PORT_LOG(ERR, port, "cannot keep the program %s: %s", name,
				af_xdp_lib_strerror(ret));
		return ret;
	}
	*progp = prog;
	AF_XDP_PORT_LOG(INFO, port,
			"Rx offloads %s: built-in program %s bound to %s, attached alone in native mode",
			af_xdp_rx_meta_names(port->rx_meta), name, port->args.iface);
	return 0;
}
