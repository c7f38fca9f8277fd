/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * l2fwd-xdp: the kernel twin of l2fwd-af-xdp.  Loads bpf/l2fwd_xdp.bpf.c
 * (embedded at build time), attaches it to the interfaces given in pairs,
 * and prints the same statistics as l2fwd-af-xdp until SIGINT, SIGTERM or
 * --duration; then detaches and prints the final statistics.
 *
 *   l2fwd-xdp [options] IFACE0 IFACE1 [IFACE2 IFACE3 ...]
 *
 * Port i is the i-th interface; 0<->1, 2<->3, ... like l2fwd-af-xdp's
 * ports.  The program is attached through BPF links: closing them detaches
 * it, and the kernel closes them if the loader dies, even by SIGKILL, so no
 * program is ever left behind.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "l2fwd_common.h"
#include "l2fwd_xdp.h"

#define PROGRAM "l2fwd-xdp"

extern const unsigned char l2fwd_xdp_bpf_obj[];
extern const size_t l2fwd_xdp_bpf_obj_len;

struct port {
	char name[IF_NAMESIZE];
	int ifindex;
	uint8_t mac[L2FWD_ETH_ALEN];
	uint8_t peer_mac[L2FWD_ETH_ALEN];	/* destination of frames sent out of it */
	int link_fd;				/* the attachment; -1: none */
	bool veth;
	bool warned_tx_failed;			/* about frames it refused after the redirect */
};

static struct {
	unsigned int period;
	bool mac_updating;
	bool skb_mode;
	bool tracing;			/* count frames refused after the redirect */
	double duration;
	bool json;
} opts = {
	.period = L2FWD_DEFAULT_PERIOD,
	.mac_updating = true,
	.tracing = true,
};

static struct port ports[L2FWD_XDP_MAX_PORTS];
static unsigned int nb_ports;
/* The tracing programs, which count forwarded frames the output interface
 * refused after the redirect (see bpf/l2fwd_xdp.bpf.c), and their links. */
static const char *const tracing_progs[] = { "l2fwd_redirect_err", "l2fwd_devmap_xmit" };
#define NB_TRACING_PROGS (sizeof(tracing_progs) / sizeof(tracing_progs[0]))
static struct bpf_link *tracing_links[NB_TRACING_PROGS];

static int
bad_option(const char *fmt, const char *value, const char *what)
{
	fprintf(stderr, PROGRAM ": error: ");
	fprintf(stderr, fmt, value, what);
	fprintf(stderr, "\n" PROGRAM ": see '" PROGRAM " --help'\n");
	return -EINVAL;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " PROGRAM " [options] IFACE0 IFACE1 [IFACE2 IFACE3 ...]\n"
		"Forwards between paired interfaces (IFACE0<->IFACE1, ...) in XDP; port N is IFACEN.\n"
		"  --drv                native XDP (default)\n"
		"  --skb                generic (skb) XDP\n"
		"  -T PERIOD            statistics every PERIOD seconds, 0..%d; 0: only at the end (default %d)\n"
		"  --mac-updating       rewrite MACs of forwarded frames (default): source = the output\n"
		"                       interface's MAC, destination = its peer MAC\n"
		"  --no-mac-updating    forward frames unchanged\n"
		"  --peer-mac PORT,MAC  destination MAC for frames sent out of PORT (a number, or the\n"
		"                       interface's name; default 02:00:00:00:00:<PORT>); repeat per port\n"
		"  --no-tracing         do not count the frames an output interface refuses after the\n"
		"                       redirect (leaves out the programs on the xdp:xdp_redirect_err and\n"
		"                       xdp:xdp_devmap_xmit tracepoints; they are then counted as tx)\n"
		"  --duration SECONDS   stop after SECONDS (default: at SIGINT or SIGTERM)\n"
		"  --json               statistics as one JSON object per line (the last has \"final\":true)\n"
		"  -h, --help           this text\n"
		"Exit status: 0 after a clean stop, 1 if set-up failed, 2 on bad options.\n",
		L2FWD_MAX_PERIOD, L2FWD_DEFAULT_PERIOD);
}

/* ---- interfaces -------------------------------------------------------- */

static int
iface_mac(int sock, const char *name, uint8_t mac[L2FWD_ETH_ALEN])
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(sock, SIOCGIFHWADDR, &ifr) < 0)
		return -errno;
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		return -EPFNOSUPPORT;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, L2FWD_ETH_ALEN);
	return 0;
}

static int
ethtool(int sock, const char *name, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = cmd;
	return ioctl(sock, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static bool
is_veth(int sock, const char *name)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };

	return ethtool(sock, name, &info) == 0 && strcmp(info.driver, "veth") == 0;
}

/* The interface's link (a veth's peer): its ifindex, and whether it is in
 * another network namespace (then the ifindex is that namespace's).  One
 * RTM_GETLINK: IFLA_LINK, and IFLA_LINK_NETNSID for another namespace. */
static int
link_peer(int ifindex, int *peer_ifindex, bool *other_netns)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh = {
			.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
			.nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST,
			.nlmsg_seq = 1,
		},
		.ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex },
	};
	static char buf[32768];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct ifinfomsg *ifi;
	struct rtattr *rta;
	ssize_t n;
	int fd, len;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0) {
		close(fd);
		return -errno;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(nh, (unsigned int)n) || nh->nlmsg_type != RTM_NEWLINK)
		return -EPROTO;
	ifi = NLMSG_DATA(nh);
	len = (int)IFLA_PAYLOAD(nh);
	*peer_ifindex = 0;
	*other_netns = false;
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFLA_LINK)
			*peer_ifindex = *(int *)RTA_DATA(rta);
		else if (rta->rta_type == IFLA_LINK_NETNSID)
			*other_netns = true;
	}
	return 0;
}

/*
 * In native mode a frame redirected into a veth is put on its peer's
 * receive ring, which exists only while the peer runs NAPI: with an XDP
 * program or GRO on.  Otherwise the kernel drops the frame after the
 * program returned XDP_REDIRECT, counted nowhere we can see.  Check the
 * peer where it is in this namespace; say what is needed where it is not.
 */
static void
check_veth_peer(int sock, const struct port *p)
{
	struct ethtool_value gro = { .cmd = ETHTOOL_GGRO };
	char peer[IF_NAMESIZE];
	int peer_ifindex = 0;
	bool other_netns = false;
	__u32 prog_id = 0;

	if (!p->veth || link_peer(p->ifindex, &peer_ifindex, &other_netns) < 0 ||
	    peer_ifindex <= 0)
		return;
	if (other_netns) {
		if (opts.tracing)
			return;		/* what is refused will be counted, and said */
		fprintf(stderr, PROGRAM ": note: %s is a veth whose peer is in another network "
			"namespace: frames forwarded out of %s reach the peer only if it has GRO on "
			"(ethtool -K <peer> gro on) or an XDP program; otherwise the kernel drops them "
			"after the redirect, uncounted (--skb does not need it)\n", p->name, p->name);
		return;
	}
	if (!if_indextoname((unsigned int)peer_ifindex, peer))
		return;
	for (unsigned int i = 0; i < nb_ports; i++)
		if (ports[i].ifindex == peer_ifindex)
			return;		/* ours: it gets our program */
	if (bpf_xdp_query_id(peer_ifindex, 0, &prog_id) == 0 && prog_id)
		return;
	if (ethtool(sock, peer, &gro) == 0 && gro.data)
		return;
	fprintf(stderr, PROGRAM ": warning: frames forwarded out of %s will be dropped: its veth "
		"peer %s has neither GRO on nor an XDP program. Run 'ethtool -K %s gro on' "
		"(or use --skb)\n", p->name, peer, peer);
}

static int
add_port(int sock, const char *name)
{
	struct port *p = &ports[nb_ports];
	int ret;

	if (nb_ports == L2FWD_XDP_MAX_PORTS)
		return bad_option("'%s': %s", name, "too many interfaces (at most "
				  L2FWD_STR(L2FWD_XDP_MAX_PORTS) ")");
	if (strlen(name) >= IF_NAMESIZE)
		return bad_option("'%s': %s", name, "not an interface name (too long)");
	p->ifindex = (int)if_nametoindex(name);
	if (!p->ifindex)
		return bad_option("'%s': %s", name, "no such interface in this network namespace");
	for (unsigned int i = 0; i < nb_ports; i++)
		if (ports[i].ifindex == p->ifindex)
			return bad_option("'%s': %s", name, "given twice");
	snprintf(p->name, sizeof(p->name), "%s", name);
	ret = iface_mac(sock, name, p->mac);
	if (ret == -EPFNOSUPPORT)
		return bad_option("'%s': %s", name, "not an Ethernet interface");
	if (ret < 0)
		return bad_option("'%s': cannot read its MAC address: %s", name, strerror(-ret));
	l2fwd_default_peer_mac(nb_ports, p->peer_mac);
	p->veth = is_veth(sock, name);
	p->link_fd = -1;
	nb_ports++;
	return 0;
}

/* ---- options ----------------------------------------------------------- */

enum {
	OPT_DRV = 256,
	OPT_SKB,
	OPT_MAC_UPDATING,
	OPT_NO_MAC_UPDATING,
	OPT_PEER_MAC,
	OPT_NO_TRACING,
	OPT_DURATION,
	OPT_JSON,
};

#define MAX_PEER_MACS	(2 * L2FWD_XDP_MAX_PORTS)

static int
parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "drv", no_argument, NULL, OPT_DRV },
		{ "skb", no_argument, NULL, OPT_SKB },
		{ "mac-updating", no_argument, NULL, OPT_MAC_UPDATING },
		{ "no-mac-updating", no_argument, NULL, OPT_NO_MAC_UPDATING },
		{ "peer-mac", required_argument, NULL, OPT_PEER_MAC },
		{ "no-tracing", no_argument, NULL, OPT_NO_TRACING },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* --peer-mac may name an interface: applied once the interfaces are known. */
	const char *peer_args[MAX_PEER_MACS];
	unsigned int nb_peer_args = 0;
	unsigned long long v;
	int c, sock, ret = 0;

	while ((c = getopt_long(argc, argv, "T:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DRV:
			opts.skb_mode = false;
			break;
		case OPT_SKB:
			opts.skb_mode = true;
			break;
		case 'T':
			ret = l2fwd_parse_uint(optarg, 0, L2FWD_MAX_PERIOD, &v);
			if (ret < 0)
				return bad_option("'%s' for -T: %s", optarg, ret == -ERANGE ?
						  "out of range, expected 0.." L2FWD_STR(L2FWD_MAX_PERIOD) :
						  "not a number, expected 0.." L2FWD_STR(L2FWD_MAX_PERIOD));
			opts.period = (unsigned int)v;
			break;
		case OPT_MAC_UPDATING:
			opts.mac_updating = true;
			break;
		case OPT_NO_MAC_UPDATING:
			opts.mac_updating = false;
			break;
		case OPT_PEER_MAC:
			if (nb_peer_args == MAX_PEER_MACS)
				return bad_option("'%s' for --peer-mac: %s", optarg, "too many --peer-mac");
			peer_args[nb_peer_args++] = optarg;
			break;
		case OPT_NO_TRACING:
			opts.tracing = false;
			break;
		case OPT_DURATION:
			if (l2fwd_parse_seconds(optarg, 1e9, &opts.duration) < 0)
				return bad_option("'%s' for --duration: %s", optarg,
						  "expected a number of seconds (0: until a signal)");
			break;
		case OPT_JSON:
			opts.json = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:	/* getopt said what */
			fprintf(stderr, PROGRAM ": see '" PROGRAM " --help'\n");
			return -EINVAL;
		}
	}

	if (optind == argc) {
		fprintf(stderr, PROGRAM ": error: no interfaces: give them in pairs, e.g. "
			PROGRAM " veth1 veth2\n");
		return -EINVAL;
	}
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		fprintf(stderr, PROGRAM ": error: socket: %s\n", strerror(errno));
		return -errno;
	}
	for (int i = optind; i < argc && ret == 0; i++)
		ret = add_port(sock, argv[i]);
	close(sock);
	if (ret < 0)
		return ret;
	if (nb_ports % 2) {
		fprintf(stderr, PROGRAM ": error: %u interface%s given: they are forwarded in pairs, "
			"give an even number\n", nb_ports, nb_ports == 1 ? "" : "s");
		return -EINVAL;
	}

	for (unsigned int k = 0; k < nb_peer_args; k++) {
		uint8_t mac[L2FWD_ETH_ALEN];
		char port[IF_NAMESIZE + 8];
		const char *why;
		unsigned int i;

		if (l2fwd_parse_peer_mac(peer_args[k], port, sizeof(port), mac, &why) < 0)
			return bad_option("'%s' for --peer-mac: %s", peer_args[k], why);
		if (l2fwd_parse_uint(port, 0, nb_ports - 1, &v) == 0) {
			i = (unsigned int)v;
		} else {
			for (i = 0; i < nb_ports; i++)
				if (strcmp(ports[i].name, port) == 0)
					break;
			if (i == nb_ports)
				return bad_option("'%s' for --peer-mac: %s", peer_args[k],
						  "PORT is neither a port number (0..number of "
						  "interfaces - 1) nor one of the interfaces given");
		}
		memcpy(ports[i].peer_mac, mac, L2FWD_ETH_ALEN);
	}
	return 0;
}

/* ---- the program ------------------------------------------------------- */

static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static struct bpf_map *
rodata_map(struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		size_t len = strlen(name);

		if (len >= 7 && strcmp(name + len - 7, ".rodata") == 0)
			return map;
	}
	return NULL;
}

/* Open and load the embedded object with the ports' configuration; the
 * tracing programs too if with_tracing. */
static struct bpf_object *
open_and_load(const struct l2fwd_xdp_conf *conf, bool with_tracing)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = "l2fwd_xdp");
	struct bpf_object *obj;
	struct bpf_map *rodata;
	int ret;

	obj = bpf_object__open_mem(l2fwd_xdp_bpf_obj, l2fwd_xdp_bpf_obj_len, &open_opts);
	if (!obj) {
		fprintf(stderr, PROGRAM ": error: cannot open the embedded BPF object: %s\n",
			strerror(errno));
		return NULL;
	}
	rodata = rodata_map(obj);
	if (!rodata || bpf_map__value_size(rodata) != sizeof(*conf)) {
		fprintf(stderr, PROGRAM ": error: the embedded BPF object's .rodata is not "
			"struct l2fwd_xdp_conf (%zu bytes): rebuild\n", sizeof(*conf));
		goto fail;
	}
	ret = bpf_map__set_initial_value(rodata, conf, sizeof(*conf));
	for (unsigned int i = 0; ret == 0 && i < NB_TRACING_PROGS; i++)
		ret = bpf_program__set_autoload(bpf_object__find_program_by_name(obj,
								tracing_progs[i]), with_tracing);
	if (ret == 0)
		ret = bpf_object__load(obj);
	if (ret < 0) {
		if (with_tracing)
			fprintf(stderr, PROGRAM ": note: cannot load the tracing programs (%s): "
				"frames an output interface refuses after the redirect are counted "
				"as tx\n", strerror(-ret));
		else
			fprintf(stderr, PROGRAM ": error: cannot load the XDP program: %s "
				"(root or CAP_BPF and CAP_NET_ADMIN are needed)\n", strerror(-ret));
		goto fail;
	}
	return obj;
fail:
	bpf_object__close(obj);
	return NULL;
}

static struct bpf_object *
load_program(void)
{
	struct l2fwd_xdp_conf conf;
	struct bpf_object *obj = NULL;
	struct stat st;

	memset(&conf, 0, sizeof(conf));
	conf.nb_ports = nb_ports;
	conf.mac_updating = opts.mac_updating;
	if (stat("/proc/self/ns/net", &st) == 0)
		conf.netns_ino = (__u32)st.st_ino;
	for (unsigned int i = 0; i < nb_ports; i++) {
		const struct port *out = &ports[i ^ 1];

		conf.port[i].ifindex = (__u32)ports[i].ifindex;
		memcpy(conf.port[i].eth_addrs, out->peer_mac, L2FWD_ETH_ALEN);
		memcpy(conf.port[i].eth_addrs + L2FWD_ETH_ALEN, out->mac, L2FWD_ETH_ALEN);
	}

	/* The tracing programs need the kernel's BTF (tp_btf, CO-RE). */
	if (opts.tracing && !conf.netns_ino) {
		fprintf(stderr, PROGRAM ": note: no /proc/self/ns/net: frames an output interface "
			"refuses after the redirect are counted as tx\n");
		opts.tracing = false;
	} else if (opts.tracing && access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		fprintf(stderr, PROGRAM ": note: the kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"frames an output interface refuses after the redirect are counted as tx\n");
		opts.tracing = false;
	}
	if (opts.tracing) {
		obj = open_and_load(&conf, true);
		if (!obj)
			opts.tracing = false;
	}
	if (!obj)
		obj = open_and_load(&conf, false);
	return obj;
}

static int
fill_devmap(struct bpf_object *obj)
{
	int fd = bpf_object__find_map_fd_by_name(obj, "tx_port");

	for (__u32 i = 0; i < nb_ports; i++) {
		__u32 out = (__u32)ports[i ^ 1].ifindex;

		if (bpf_map_update_elem(fd, &i, &out, BPF_ANY) < 0) {
			fprintf(stderr, PROGRAM ": error: cannot add %s to the devmap: %s "
				"(it cannot be a redirect target)\n", ports[i ^ 1].name, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* tx_port's id into the program's .bss, for l2fwd_redirect_err. */
static int
set_map_id(struct bpf_object *obj)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0;
	struct bpf_map *bss = NULL, *map;
	int ret;

	if (!opts.tracing)
		return 0;
	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		size_t n = strlen(name);

		if (n >= 4 && strcmp(name + n - 4, ".bss") == 0)
			bss = map;
	}
	memset(&info, 0, sizeof(info));
	ret = bpf_obj_get_info_by_fd(bpf_object__find_map_fd_by_name(obj, "tx_port"), &info, &len);
	if (ret == 0 && (!bss || bpf_map__value_size(bss) != sizeof(info.id)))
		ret = -EPROTO;
	if (ret == 0)
		ret = bpf_map_update_elem(bpf_map__fd(bss), &zero, &info.id, BPF_ANY);
	if (ret < 0) {
		fprintf(stderr, PROGRAM ": error: cannot give the tracing program the devmap's id: "
			"%s\n", strerror(ret == -EPROTO ? EPROTO : errno));
		return -1;
	}
	return 0;
}

static void
detach_all(void)
{
	for (unsigned int i = 0; i < NB_TRACING_PROGS; i++) {
		bpf_link__destroy(tracing_links[i]);
		tracing_links[i] = NULL;
	}
	for (unsigned int i = 0; i < nb_ports; i++) {
		if (ports[i].link_fd >= 0) {
			close(ports[i].link_fd);
			ports[i].link_fd = -1;
		}
	}
}

static int
attach_all(struct bpf_object *obj)
{
	LIBBPF_OPTS(bpf_link_create_opts, link_opts,
		    .flags = opts.skb_mode ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE);
	const char *mode = opts.skb_mode ? "generic (skb)" : "native (drv)";
	int prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "l2fwd_xdp"));

	for (unsigned int i = 0; i < nb_ports; i++) {
		struct port *p = &ports[i];
		int fd = bpf_link_create(prog_fd, p->ifindex, BPF_XDP, &link_opts);

		if (fd < 0) {
			int err = -fd;

			if (err == EBUSY || err == EEXIST)
				fprintf(stderr, PROGRAM ": error: cannot attach to %s: another XDP program "
					"is attached (see 'ip link show dev %s')\n", p->name, p->name);
			else
				fprintf(stderr, PROGRAM ": error: cannot attach to %s in %s mode: %s%s\n",
					p->name, mode, strerror(err),
					opts.skb_mode ? "" : " (no native XDP there? try --skb)");
			detach_all();
			return -err;
		}
		p->link_fd = fd;
	}
	for (unsigned int i = 0; opts.tracing && i < NB_TRACING_PROGS; i++) {
		tracing_links[i] = bpf_program__attach(bpf_object__find_program_by_name(obj,
								tracing_progs[i]));
		if (!tracing_links[i]) {
			fprintf(stderr, PROGRAM ": note: cannot attach %s (%s): frames an output "
				"interface refuses after the redirect are counted as tx\n",
				tracing_progs[i], strerror(errno));
			opts.tracing = false;
		}
	}
	return 0;
}

/* ---- statistics -------------------------------------------------------- */

static int
collect(int counts_fd, struct l2fwd_counts *now)
{
	static struct l2fwd_xdp_counts *per_cpu;
	static int ncpu;
	struct l2fwd_xdp_counts sum[L2FWD_XDP_MAX_PORTS];

	if (!per_cpu) {
		ncpu = libbpf_num_possible_cpus();
		if (ncpu <= 0)
			return ncpu < 0 ? ncpu : -EINVAL;
		per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
		if (!per_cpu)
			return -ENOMEM;
	}
	memset(sum, 0, sizeof(sum));
	for (__u32 i = 0; i < nb_ports; i++) {
		if (bpf_map_lookup_elem(counts_fd, &i, per_cpu) < 0)
			return -errno;
		for (int c = 0; c < ncpu; c++) {
			sum[i].rx += per_cpu[c].rx;
			sum[i].forwarded += per_cpu[c].forwarded;
			sum[i].dropped += per_cpu[c].dropped;
			sum[i].tx_failed += per_cpu[c].tx_failed;
		}
	}
	/* tx and dropped belong to the port the frames went out of. */
	for (unsigned int i = 0; i < nb_ports; i++) {
		const struct l2fwd_xdp_counts *in = &sum[i ^ 1];

		now[i].rx = sum[i].rx;
		now[i].tx = in->forwarded - in->tx_failed;
		now[i].dropped = in->dropped + in->tx_failed;
		if (in->tx_failed && !ports[i].warned_tx_failed) {
			ports[i].warned_tx_failed = true;
			fprintf(stderr, PROGRAM ": warning: %s refused frames redirected to it (%llu "
				"so far)%s\n", ports[i].name, (unsigned long long)in->tx_failed,
				ports[i].veth ? ": a veth takes them only while its peer has GRO on "
				"(ethtool -K <peer> gro on) or an XDP program, and room in the peer's "
				"receive ring" : "");
		}
	}
	return 0;
}

static int
print_stats(struct l2fwd_report *r, int counts_fd, bool final)
{
	struct l2fwd_counts now[L2FWD_XDP_MAX_PORTS];
	int ret = collect(counts_fd, now);

	if (ret < 0) {
		fprintf(stderr, PROGRAM ": error: cannot read the counters: %s\n", strerror(-ret));
		return ret;
	}
	l2fwd_report_print(r, stdout, now, final);
	return 0;
}

static void
describe_setup(void)
{
	for (unsigned int i = 0; i < nb_ports; i++) {
		const struct port *p = &ports[i];
		char dst[18], src[18];

		printf(PROGRAM ": port %u %s (ifindex %d): forwards to port %u %s; frames sent out of "
		       "it: ", i, p->name, p->ifindex, i ^ 1, ports[i ^ 1].name);
		if (opts.mac_updating)
			printf("dst %s, src %s (its MAC)\n", l2fwd_format_mac(p->peer_mac, dst),
			       l2fwd_format_mac(p->mac, src));
		else
			printf("unchanged (--no-mac-updating)\n");
	}
}

static void
to_timespec(double seconds, struct timespec *ts)
{
	if (seconds < 0)
		seconds = 0;
	ts->tv_sec = (time_t)seconds;
	ts->tv_nsec = (long)((seconds - (double)ts->tv_sec) * 1e9);
}

/* Until a signal or the end of --duration, a report every period.  Returns
 * the signal, 0 at the end of the duration, or a negative errno. */
static int
run(struct l2fwd_report *r, int counts_fd, const sigset_t *stop)
{
	double start = r->start;
	double next_report = opts.period ? start + opts.period : 0;
	double end = opts.duration > 0 ? start + opts.duration : 0;

	for (;;) {
		double now = l2fwd_now(), wake = 0;
		struct timespec ts;
		int sig;

		if (end && now >= end)
			return 0;
		if (next_report && now >= next_report) {
			if (print_stats(r, counts_fd, false) < 0)
				return -EIO;
			next_report += opts.period;
			if (next_report <= now)		/* late: do not catch up */
				next_report = now + opts.period;
		}
		if (next_report)
			wake = next_report;
		if (end && (!wake || end < wake))
			wake = end;
		if (wake) {
			to_timespec(wake - now, &ts);
			sig = sigtimedwait(stop, NULL, &ts);
		} else {
			sig = sigwaitinfo(stop, NULL);
		}
		if (sig > 0)
			return sig;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
}

int
main(int argc, char **argv)
{
	struct l2fwd_report report;
	struct bpf_object *obj;
	sigset_t stop;
	int ret, counts_fd, status = L2FWD_EXIT_RUNTIME;

	/* Blocked from the start: a signal during set-up waits for the loop,
	 * which then stops at once and detaches cleanly. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);

	ret = parse_options(argc, argv);
	if (ret != 0)
		return ret > 0 ? L2FWD_EXIT_OK : L2FWD_EXIT_USAGE;
	libbpf_set_print(libbpf_print);

	obj = load_program();
	if (!obj)
		return L2FWD_EXIT_RUNTIME;
	counts_fd = bpf_object__find_map_fd_by_name(obj, "port_counts");
	if (fill_devmap(obj) < 0 || set_map_id(obj) < 0 || attach_all(obj) < 0)
		goto out;

	memset(&report, 0, sizeof(report));
	report.program = PROGRAM;
	report.json = opts.json;
	report.nb_ports = nb_ports;
	for (unsigned int i = 0; i < nb_ports; i++) {
		report.port_id[i] = i;
		snprintf(report.name[i], sizeof(report.name[i]), "%s", ports[i].name);
	}
	if (!opts.skb_mode) {
		int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		for (unsigned int i = 0; sock >= 0 && i < nb_ports; i++)
			check_veth_peer(sock, &ports[i]);
		if (sock >= 0)
			close(sock);
	}
	describe_setup();
	printf(PROGRAM ": forwarding in %s XDP, %s, %s; statistics %s; stop with SIGINT or SIGTERM%s\n",
	       opts.skb_mode ? "generic (skb)" : "native (drv)",
	       opts.mac_updating ? "MAC updating" : "no MAC updating",
	       opts.tracing ? "refused frames counted" : "refused frames not counted",
	       opts.period ? "periodic" : "at the end", opts.duration > 0 ? " or --duration" : "");
	fflush(stdout);

	l2fwd_report_start(&report);
	ret = run(&report, counts_fd, &stop);
	if (ret > 0)
		printf(PROGRAM ": %s: stopping\n", l2fwd_signal_name(ret));
	else if (ret == 0)
		printf(PROGRAM ": stopping\n");
	detach_all();
	printf(PROGRAM ": detached from %u interface%s\n", nb_ports, nb_ports == 1 ? "" : "s");
	if (print_stats(&report, counts_fd, true) == 0 && ret >= 0)
		status = L2FWD_EXIT_OK;
out:
	detach_all();
	bpf_object__close(obj);
	return status;
}
