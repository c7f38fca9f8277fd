/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * l2fwd-af-xdp: a DPDK application forwarding between paired ports
 * (0<->1, 2<->3, ... in port mask order) in bursts of up to 64, rewriting
 * each frame's MAC addresses on the way out like DPDK's l2fwd (source: the
 * output port's MAC; destination: the output port's peer MAC), or leaving
 * them alone.  Written for AF_XDP ports (net_af_xdp vdevs, our plugin or
 * Debian's stock driver) but uses nothing of them: any ethdev works.
 *
 * Its kernel twin, l2fwd-xdp (l2fwd_xdp.c), does the same forwarding in an
 * XDP program; both print the same statistics (l2fwd_common.c).
 *
 *   l2fwd-af-xdp [EAL options] -- [-p PORTMASK] [-q N] [-T PERIOD] ...
 *
 * Threads: every lcore (the main one included) polls up to -q ports, one
 * Rx queue each, and transmits on the paired port's single Tx queue, which
 * only that lcore uses.  The main lcore also prints the statistics and
 * watches --duration.  SIGINT/SIGTERM stop the loops; then the ports are
 * stopped and closed (AF_XDP drivers detach their XDP programs there) and
 * the final statistics printed.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

#include "l2fwd_common.h"

#define PROGRAM "l2fwd-af-xdp"

/* A burst is at most 64 frames: our driver receives in batches of 64 (one
 * Rx-ring consumer update each), so a larger burst would only loop there. */
#define MAX_BURST		64
#define DEFAULT_BURST		64
/* DPDK's l2fwd takes at most 16 ports per lcore (-q) as well. */
#define MAX_PORTS_PER_LCORE	16
/* Ring sizes: 2048 is libxdp's default for AF_XDP rings. */
#define DEFAULT_RING_SIZE	2048
#define MAX_RING_SIZE		16384
#define MEMPOOL_CACHE		256
#define MIN_MBUFS		8192
/* The main lcore with no port to poll checks the clock this often. */
#define IDLE_MAIN_SLEEP_US	10000

/* The highest port number EAL can have (a literal for messages). */
#define MAX_PORT_ID		31
_Static_assert(MAX_PORT_ID == RTE_MAX_ETHPORTS - 1, "MAX_PORT_ID follows RTE_MAX_ETHPORTS");

/* Bytes rewritten in each frame with MAC updating: destination, then source. */
#define ETH_ADDRS_LEN		(2 * RTE_ETHER_ADDR_LEN)

struct options {
	uint64_t portmask;		/* 0: every port */
	unsigned int ports_per_lcore;	/* -q */
	unsigned int period;		/* -T, seconds; 0: no periodic statistics */
	bool mac_updating;
	bool promiscuous;		/* -P */
	unsigned int burst;
	uint16_t rxd, txd;
	double duration;		/* seconds; 0: until SIGINT/SIGTERM */
	bool json;
	unsigned int mtu;		/* 0: the ports' own */
	bool peer_set[RTE_MAX_ETHPORTS];
	uint8_t peer_mac[RTE_MAX_ETHPORTS][L2FWD_ETH_ALEN];
};

/* A forwarding port; fwd_ports[] is in port mask order, pairs adjacent. */
struct fwd_port {
	uint16_t port_id;
	unsigned int out;			/* index in fwd_ports[] of the paired port */
	uint8_t eth_addrs[ETH_ADDRS_LEN];	/* written in frames sent out of this port */
	char name[48];				/* "net_af_xdp0 (veth0)" */
} __rte_cache_aligned;

/* Counters of the frames received on one port; only the lcore polling it
 * writes them (so no atomic read-modify-write is needed, and no cache line
 * is shared between lcores).  The report shows tx and dropped at the port
 * the frames went out of. */
struct rx_counts {
	uint64_t rx;		/* received */
	uint64_t forwarded;	/* taken by the output port's transmit */
	uint64_t dropped;	/* refused by it, and freed */
} __rte_cache_aligned;

struct lcore_conf {
	unsigned int nb_ports;
	unsigned int ports[MAX_PORTS_PER_LCORE];	/* indexes in fwd_ports[] */
} __rte_cache_aligned;

static struct options opts = {
	.ports_per_lcore = 1,
	.period = L2FWD_DEFAULT_PERIOD,
	.mac_updating = true,
	.burst = DEFAULT_BURST,
	.rxd = DEFAULT_RING_SIZE,
	.txd = DEFAULT_RING_SIZE,
};
static struct fwd_port fwd_ports[RTE_MAX_ETHPORTS];
static unsigned int nb_fwd_ports;
static struct rx_counts counts[RTE_MAX_ETHPORTS];
static struct lcore_conf lcore_conf[RTE_MAX_LCORE];
static bool port_started[RTE_MAX_ETHPORTS];
static struct l2fwd_report report;

/* Set by the signal handler or at the end of --duration; read by every lcore. */
static bool quit;
static volatile sig_atomic_t quit_signal;

static inline bool
quit_requested(void)
{
	return __atomic_load_n(&quit, __ATOMIC_RELAXED);
}

static void
on_signal(int sig)
{
	quit_signal = sig;
	__atomic_store_n(&quit, true, __ATOMIC_RELAXED);
}

/* ---- options ------------------------------------------------------------ */

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " PROGRAM " [EAL options] -- [options]\n"
		"Forwards between paired ports (the 1st and 2nd of the port mask, the 3rd and 4th, ...).\n"
		"  -p PORTMASK          hexadecimal mask of the ports to forward between (default: all);\n"
		"                       an even number of ports\n"
		"  -q N                 ports (one Rx queue each) polled per lcore, 1..%d (default 1)\n"
		"  -T PERIOD            statistics every PERIOD seconds, 0..%d; 0: only at the end (default %d)\n"
		"  --mac-updating       rewrite MACs of forwarded frames (default): source = the output\n"
		"                       port's MAC, destination = the output port's peer MAC\n"
		"  --no-mac-updating    forward frames unchanged\n"
		"  --peer-mac PORT,MAC  destination MAC for frames sent out of port PORT\n"
		"                       (default 02:00:00:00:00:<PORT>); repeat per port\n"
		"  -P                   put the ports in promiscuous mode\n"
		"  --burst N            frames per receive burst, 1..%d (default %d)\n"
		"  --rxd N, --txd N     Rx/Tx ring sizes, 1..%d (default %d; drivers may round them)\n"
		"  --duration SECONDS   stop after SECONDS (default: at SIGINT or SIGTERM)\n"
		"  --json               statistics as one JSON object per line (the last has \"final\":true)\n"
		"  --mtu N              set the ports' MTU to N, %d..%d; frames longer than an mbuf are\n"
		"                       received and sent as chains (scatter, multi-segment offloads)\n"
		"  -h, --help           this text\n"
		"Exit status: 0 after a clean stop, 1 if set-up or forwarding failed, 2 on bad options.\n",
		MAX_PORTS_PER_LCORE, L2FWD_MAX_PERIOD, L2FWD_DEFAULT_PERIOD, MAX_BURST, DEFAULT_BURST,
		MAX_RING_SIZE, DEFAULT_RING_SIZE, RTE_ETHER_MIN_MTU, UINT16_MAX);
}

static int
bad_option(const char *fmt, const char *value, const char *what)
{
	fprintf(stderr, PROGRAM ": error: ");
	fprintf(stderr, fmt, value, what);
	fprintf(stderr, "\n" PROGRAM ": see '" PROGRAM " [EAL options] -- --help'\n");
	return -EINVAL;
}

static int
parse_number(const char *opt, const char *text, unsigned long long min, unsigned long long max,
	     unsigned long long *v)
{
	char what[128];
	int ret = l2fwd_parse_uint(text, min, max, v);

	if (ret == 0)
		return 0;
	snprintf(what, sizeof(what), "%s: %s %llu..%llu", opt,
		 ret == -ERANGE ? "out of range, expected" : "not a number, expected", min, max);
	return bad_option("'%s' for %s", text, what);
}

enum {
	OPT_MAC_UPDATING = 256,
	OPT_NO_MAC_UPDATING,
	OPT_PEER_MAC,
	OPT_BURST,
	OPT_RXD,
	OPT_TXD,
	OPT_DURATION,
	OPT_JSON,
	OPT_MTU,
};

static int
parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mac-updating", no_argument, NULL, OPT_MAC_UPDATING },
		{ "no-mac-updating", no_argument, NULL, OPT_NO_MAC_UPDATING },
		{ "peer-mac", required_argument, NULL, OPT_PEER_MAC },
		{ "burst", required_argument, NULL, OPT_BURST },
		{ "rxd", required_argument, NULL, OPT_RXD },
		{ "txd", required_argument, NULL, OPT_TXD },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "mtu", required_argument, NULL, OPT_MTU },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	char port[32];
	const char *why;
	char *end;
	int c;

	optind = 0;	/* EAL used getopt before: start afresh */
	while ((c = getopt_long(argc, argv, "p:q:T:Ph", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			v = strtoull(optarg, &end, 16);
			if (optarg[0] == '\0' || optarg[0] == '-' || *end != '\0' || errno || v == 0)
				return bad_option("'%s' for -p: %s", optarg,
						  "expected a non-zero hexadecimal port mask, e.g. 0x3");
			opts.portmask = v;
			break;
		case 'q':
			if (parse_number("-q", optarg, 1, MAX_PORTS_PER_LCORE, &v) < 0)
				return -EINVAL;
			opts.ports_per_lcore = (unsigned int)v;
			break;
		case 'T':
			if (parse_number("-T", optarg, 0, L2FWD_MAX_PERIOD, &v) < 0)
				return -EINVAL;
			opts.period = (unsigned int)v;
			break;
		case 'P':
			opts.promiscuous = true;
			break;
		case OPT_MAC_UPDATING:
			opts.mac_updating = true;
			break;
		case OPT_NO_MAC_UPDATING:
			opts.mac_updating = false;
			break;
		case OPT_PEER_MAC: {
			uint8_t mac[L2FWD_ETH_ALEN];

			if (l2fwd_parse_peer_mac(optarg, port, sizeof(port), mac, &why) < 0)
				return bad_option("'%s' for --peer-mac: %s", optarg, why);
			if (l2fwd_parse_uint(port, 0, RTE_MAX_ETHPORTS - 1, &v) < 0)
				return bad_option("'%s' for --peer-mac: %s", optarg,
						  "PORT must be a port number (0.." L2FWD_STR(MAX_PORT_ID) ")");
			opts.peer_set[v] = true;
			memcpy(opts.peer_mac[v], mac, L2FWD_ETH_ALEN);
			break;
		}
		case OPT_BURST:
			if (parse_number("--burst", optarg, 1, MAX_BURST, &v) < 0)
				return -EINVAL;
			opts.burst = (unsigned int)v;
			break;
		case OPT_RXD:
		case OPT_TXD:
			if (parse_number(c == OPT_RXD ? "--rxd" : "--txd", optarg, 1, MAX_RING_SIZE,
					 &v) < 0)
				return -EINVAL;
			*(c == OPT_RXD ? &opts.rxd : &opts.txd) = (uint16_t)v;
			break;
		case OPT_DURATION:
			if (l2fwd_parse_seconds(optarg, 1e9, &opts.duration) < 0)
				return bad_option("'%s' for --duration: %s", optarg,
						  "expected a number of seconds (0: until a signal)");
			break;
		case OPT_JSON:
			opts.json = true;
			break;
		case OPT_MTU:
			if (parse_number("--mtu", optarg, RTE_ETHER_MIN_MTU, UINT16_MAX, &v) < 0)
				return -EINVAL;
			opts.mtu = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:	/* getopt said what */
			fprintf(stderr, PROGRAM ": see '" PROGRAM " [EAL options] -- --help'\n");
			return -EINVAL;
		}
	}
	if (optind < argc)
		return bad_option("unexpected argument '%s'%s", argv[optind],
				  " (options go after '--'; interfaces are given to EAL with --vdev)");
	return 0;
}

/* ---- ports ------------------------------------------------------------- */

/* "net_af_xdp0 (veth0)": the device name and, for AF_XDP vdevs, the interface. */
static void
port_name(uint16_t port_id, char *buf, size_t size)
{
	char dev[RTE_ETH_NAME_MAX_LEN] = "?";
	char iface[24] = "";
	struct rte_eth_dev_info info;

	rte_eth_dev_get_name_by_port(port_id, dev);
	if (rte_eth_dev_info_get(port_id, &info) == 0 && info.device) {
		const struct rte_devargs *da = rte_dev_devargs(info.device);
		const char *p = da && da->args ? strstr(da->args, "iface=") : NULL;

		if (p) {
			size_t n = strcspn(p + 6, ",");

			if (n >= sizeof(iface))
				n = sizeof(iface) - 1;
			memcpy(iface, p + 6, n);
			iface[n] = '\0';
		}
	}
	if (iface[0])
		snprintf(buf, size, "%s (%s)", dev, iface);
	else
		snprintf(buf, size, "%s", dev);
}

static void
list_ports(FILE *out)
{
	uint16_t pid;
	char name[64];

	fprintf(out, PROGRAM ": ports:");
	RTE_ETH_FOREACH_DEV(pid) {
		port_name(pid, name, sizeof(name));
		fprintf(out, " %u %s;", pid, name);
	}
	fprintf(out, "\n");
}

/* The forwarding ports from the port mask, paired in order; peer MACs. */
static int
select_ports(void)
{
	uint16_t pid;
	unsigned int avail = 0;

	RTE_ETH_FOREACH_DEV(pid)
		avail++;
	if (avail == 0) {
		fprintf(stderr, PROGRAM ": error: no ports. Give AF_XDP interfaces to EAL, e.g. "
			"--vdev net_af_xdp0,iface=IFACE --vdev net_af_xdp1,iface=IFACE2 "
			"(with -d <plugin> for another driver than the default)\n");
		return -ENODEV;
	}
	for (unsigned int bit = 0; bit < 64; bit++) {
		if (!(opts.portmask & (1ULL << bit)))
			continue;
		if (bit >= RTE_MAX_ETHPORTS || !rte_eth_dev_is_valid_port((uint16_t)bit)) {
			fprintf(stderr, PROGRAM ": error: -p 0x%" PRIx64 ": there is no port %u\n",
				opts.portmask, bit);
			list_ports(stderr);
			return -EINVAL;
		}
	}
	RTE_ETH_FOREACH_DEV(pid) {
		if (opts.portmask && !(opts.portmask & (1ULL << pid)))
			continue;
		fwd_ports[nb_fwd_ports].port_id = pid;
		port_name(pid, fwd_ports[nb_fwd_ports].name, sizeof(fwd_ports[0].name));
		nb_fwd_ports++;
	}
	if (nb_fwd_ports % 2) {
		fprintf(stderr, PROGRAM ": error: %u port%s selected%s: ports are forwarded in pairs, "
			"give an even number (-p)\n", nb_fwd_ports, nb_fwd_ports == 1 ? "" : "s",
			opts.portmask ? "" : " (all ports)");
		list_ports(stderr);
		return -EINVAL;
	}
	for (unsigned int port = 0; port < RTE_MAX_ETHPORTS; port++) {
		bool found = false;

		if (!opts.peer_set[port])
			continue;
		for (unsigned int i = 0; i < nb_fwd_ports; i++)
			found |= fwd_ports[i].port_id == port;
		if (!found) {
			fprintf(stderr, PROGRAM ": error: --peer-mac %u,...: port %u is not forwarded "
				"(%s)\n", port, port,
				opts.portmask ? "not in the port mask" : "no such port");
			list_ports(stderr);
			return -EINVAL;
		}
	}
	for (unsigned int i = 0; i < nb_fwd_ports; i++) {
		struct fwd_port *fp = &fwd_ports[i];
		struct rte_ether_addr own;
		uint8_t peer[L2FWD_ETH_ALEN];
		int ret;

		fp->out = i ^ 1;
		ret = rte_eth_macaddr_get(fp->port_id, &own);
		if (ret < 0) {
			fprintf(stderr, PROGRAM ": error: port %u: cannot read its MAC address: %s\n",
				fp->port_id, rte_strerror(-ret));
			return ret;
		}
		if (opts.peer_set[fp->port_id])
			memcpy(peer, opts.peer_mac[fp->port_id], L2FWD_ETH_ALEN);
		else
			l2fwd_default_peer_mac(fp->port_id, peer);
		memcpy(fp->eth_addrs, peer, RTE_ETHER_ADDR_LEN);
		memcpy(fp->eth_addrs + RTE_ETHER_ADDR_LEN, own.addr_bytes, RTE_ETHER_ADDR_LEN);
	}
	return 0;
}

/* Ports to lcores in lcore order, -q per lcore, the main lcore first in line
 * like any other (one lcore can run the whole thing). */
static int
assign_lcores(void)
{
	unsigned int lcore, next = 0, nb_lcores = rte_lcore_count();
	unsigned int needed = (nb_fwd_ports + opts.ports_per_lcore - 1) / opts.ports_per_lcore;

	if (needed > nb_lcores) {
		fprintf(stderr, PROGRAM ": error: %u ports at %u per lcore (-q) need %u lcores; "
			"EAL has %u (-l): raise -q or give more lcores\n",
			nb_fwd_ports, opts.ports_per_lcore, needed, nb_lcores);
		return -EINVAL;
	}
	RTE_LCORE_FOREACH(lcore) {
		struct lcore_conf *lc = &lcore_conf[lcore];

		while (next < nb_fwd_ports && lc->nb_ports < opts.ports_per_lcore)
			lc->ports[lc->nb_ports++] = next++;
	}
	return 0;
}

static unsigned int
mbufs_needed(void)
{
	unsigned int n = nb_fwd_ports * (opts.rxd + opts.txd + 2 * MAX_BURST) +
			 rte_lcore_count() * (MEMPOOL_CACHE + MAX_BURST);

	return RTE_MAX(n, (unsigned int)MIN_MBUFS);
}

/*
 * The configuration for --mtu: frames longer than an mbuf's data room are
 * received and sent as chains, where the port can (scatter, multi-segment
 * offloads); otherwise the port refuses the MTU and says why.
 */
static int
port_conf(uint16_t pid, struct rte_mempool *pool, struct rte_eth_conf *conf)
{
	uint32_t room = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
	struct rte_eth_dev_info info;
	int ret;

	memset(conf, 0, sizeof(*conf));	/* defaults: one queue, no offloads */
	if (opts.mtu == 0)
		return 0;
	ret = rte_eth_dev_info_get(pid, &info);
	if (ret != 0)
		return ret;
	conf->rxmode.mtu = opts.mtu;
	if (opts.mtu + RTE_ETHER_HDR_LEN > room) {
		conf->rxmode.offloads |= info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER;
		conf->txmode.offloads |= info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	}
	return 0;
}

static int
start_port(struct fwd_port *fp, struct rte_mempool *pool)
{
	uint16_t pid = fp->port_id, rxd = opts.rxd, txd = opts.txd;
	int socket = rte_eth_dev_socket_id(pid);
	struct rte_eth_conf conf;
	const char *step;
	int ret;

	if (socket < 0)
		socket = (int)rte_socket_id();
	step = "read its capabilities";
	ret = port_conf(pid, pool, &conf);
	if (ret == 0) {
		step = "configure";
		ret = rte_eth_dev_configure(pid, 1, 1, &conf);
	}
	if (ret == 0 && opts.mtu != 0) {
		step = "set its MTU";
		ret = rte_eth_dev_set_mtu(pid, (uint16_t)opts.mtu);
	}
	if (ret == 0) {
		step = "adjust ring sizes";
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &rxd, &txd);
	}
	if (ret == 0) {
		step = "set up its Rx queue";
		ret = rte_eth_rx_queue_setup(pid, 0, rxd, (unsigned int)socket, NULL, pool);
	}
	if (ret == 0) {
		step = "set up its Tx queue";
		ret = rte_eth_tx_queue_setup(pid, 0, txd, (unsigned int)socket, NULL);
	}
	if (ret == 0 && opts.promiscuous) {
		step = "enable promiscuous mode";
		ret = rte_eth_promiscuous_enable(pid);
	}
	if (ret == 0) {
		step = "start";
		ret = rte_eth_dev_start(pid);
		port_started[pid] = ret == 0;
	}
	if (ret < 0) {
		fprintf(stderr, PROGRAM ": error: port %u %s: cannot %s: %s\n", pid, fp->name, step,
			rte_strerror(-ret));
		return ret;
	}
	return 0;
}

static void
describe_setup(void)
{
	unsigned int lcore;

	for (unsigned int i = 0; i < nb_fwd_ports; i++) {
		const struct fwd_port *fp = &fwd_ports[i];
		struct rte_eth_link link;
		char dst[18], src[18], lk[48] = "link unknown";

		/* Not rte_eth_link_to_str(): experimental in 22.11, and the
		 * example uses only stable API. */
		if (rte_eth_link_get_nowait(fp->port_id, &link) == 0) {
			if (link.link_status == RTE_ETH_LINK_DOWN)
				snprintf(lk, sizeof(lk), "link down");
			else if (link.link_speed == RTE_ETH_SPEED_NUM_NONE ||
				 link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
				snprintf(lk, sizeof(lk), "link up");
			else
				snprintf(lk, sizeof(lk), "link up, %u Mbps", link.link_speed);
		}
		printf(PROGRAM ": port %u %s: %s; forwards to port %u %s; frames sent out of it: ",
		       fp->port_id, fp->name, lk, fwd_ports[fp->out].port_id, fwd_ports[fp->out].name);
		if (opts.mac_updating)
			printf("dst %s, src %s (its MAC)\n", l2fwd_format_mac(fp->eth_addrs, dst),
			       l2fwd_format_mac(fp->eth_addrs + RTE_ETHER_ADDR_LEN, src));
		else
			printf("unchanged (--no-mac-updating)\n");
	}
	RTE_LCORE_FOREACH(lcore) {
		const struct lcore_conf *lc = &lcore_conf[lcore];

		printf(PROGRAM ": lcore %u%s polls", lcore,
		       lcore == rte_get_main_lcore() ? " (main)" : "");
		for (unsigned int i = 0; i < lc->nb_ports; i++)
			printf(" port %u", fwd_ports[lc->ports[i]].port_id);
		printf("%s\n", lc->nb_ports ? "" : " nothing");
	}
}

/* Stop and close every port EAL probed (those not forwarded too), so that
 * AF_XDP drivers detach their XDP programs. */
static int
close_ports(void)
{
	uint16_t pid;
	int ret, err = 0;

	RTE_ETH_FOREACH_DEV(pid) {
		if (port_started[pid]) {
			ret = rte_eth_dev_stop(pid);
			if (ret < 0) {
				fprintf(stderr, PROGRAM ": port %u: stop failed: %s\n", pid,
					rte_strerror(-ret));
				err = ret;
			}
			port_started[pid] = false;
		}
		ret = rte_eth_dev_close(pid);
		if (ret < 0) {
			fprintf(stderr, PROGRAM ": port %u: close failed: %s\n", pid, rte_strerror(-ret));
			err = ret;
		}
	}
	return err;
}

/* ---- forwarding -------------------------------------------------------- */

static void
collect(struct l2fwd_counts *now)
{
	for (unsigned int i = 0; i < nb_fwd_ports; i++) {
		const struct rx_counts *in = &counts[i];
		const struct rx_counts *to_me = &counts[fwd_ports[i].out];

		now[i].rx = __atomic_load_n(&in->rx, __ATOMIC_RELAXED);
		now[i].tx = __atomic_load_n(&to_me->forwarded, __ATOMIC_RELAXED);
		now[i].dropped = __atomic_load_n(&to_me->dropped, __ATOMIC_RELAXED);
	}
}

static void
print_stats(bool final)
{
	struct l2fwd_counts now[RTE_MAX_ETHPORTS];

	collect(now);
	l2fwd_report_print(&report, stdout, now, final);
}

/* Main lcore only: the statistics period and --duration. */
struct main_clock {
	uint64_t next_report;	/* TSC; UINT64_MAX: none */
	uint64_t period;
	uint64_t deadline;	/* TSC; UINT64_MAX: none */
};

static void
main_duties(struct main_clock *mc)
{
	uint64_t now = rte_rdtsc();

	if (now >= mc->next_report) {
		print_stats(false);
		mc->next_report += mc->period;
		if (mc->next_report <= now)	/* printing was slow: do not catch up */
			mc->next_report = now + mc->period;
	}
	if (now >= mc->deadline)
		__atomic_store_n(&quit, true, __ATOMIC_RELAXED);
}

static inline void
add_count(uint64_t *counter, uint64_t n)
{
	/* Single writer: a plain add, stored whole for the reader on main. */
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

/* One burst from one port to its pair.  mac_updating is a constant in each
 * caller: the loop is compiled twice, with and without the rewrite. */
static __rte_always_inline void
forward_burst(unsigned int in, uint16_t burst, const bool mac_updating)
{
	struct rte_mbuf *pkts[MAX_BURST];
	const struct fwd_port *out = &fwd_ports[fwd_ports[in].out];
	struct rx_counts *c = &counts[in];
	uint16_t nb_rx, nb_tx;

	nb_rx = rte_eth_rx_burst(fwd_ports[in].port_id, 0, pkts, burst);
	if (nb_rx == 0)
		return;
	if (mac_updating) {
		for (uint16_t i = 0; i < nb_rx; i++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
		for (uint16_t i = 0; i < nb_rx; i++) {
			struct rte_mbuf *m = pkts[i];

			/* A runt has no addresses to rewrite: it goes out as it came. */
			if (likely(rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN))
				memcpy(rte_pktmbuf_mtod(m, uint8_t *), out->eth_addrs, ETH_ADDRS_LEN);
		}
	}
	nb_tx = rte_eth_tx_burst(out->port_id, 0, pkts, nb_rx);
	if (unlikely(nb_tx < nb_rx)) {
		rte_pktmbuf_free_bulk(&pkts[nb_tx], nb_rx - nb_tx);
		add_count(&c->dropped, nb_rx - nb_tx);
	}
	add_count(&c->rx, nb_rx);
	add_count(&c->forwarded, nb_tx);
}

static __rte_always_inline void
forward_loop(const struct lcore_conf *lc, struct main_clock *mc, const bool mac_updating)
{
	const uint16_t burst = (uint16_t)opts.burst;

	while (!quit_requested()) {
		for (unsigned int i = 0; i < lc->nb_ports; i++)
			forward_burst(lc->ports[i], burst, mac_updating);
		if (mc)
			main_duties(mc);
	}
}

static int
lcore_main(void *arg)
{
	struct main_clock *mc = rte_lcore_id() == rte_get_main_lcore() ? arg : NULL;
	const struct lcore_conf *lc = &lcore_conf[rte_lcore_id()];

	if (lc->nb_ports == 0) {
		while (mc && !quit_requested()) {
			main_duties(mc);
			rte_delay_us_sleep(IDLE_MAIN_SLEEP_US);
		}
		return 0;
	}
	if (opts.mac_updating)
		forward_loop(lc, mc, true);
	else
		forward_loop(lc, mc, false);
	return 0;
}

/* ---- main -------------------------------------------------------------- */

static int
install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGHUP, &sa, NULL) < 0)
		return -errno;
	return 0;
}

static struct main_clock
main_clock(void)
{
	uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc();
	struct main_clock mc = {
		.next_report = UINT64_MAX,
		.period = (uint64_t)opts.period * hz,
		.deadline = UINT64_MAX,
	};

	if (opts.period)
		mc.next_report = now + mc.period;
	if (opts.duration > 0)
		mc.deadline = now + (uint64_t)(opts.duration * (double)hz);
	return mc;
}

int
main(int argc, char **argv)
{
	struct rte_mempool *pool = NULL;
	struct main_clock mc;
	int ret, status = L2FWD_EXIT_RUNTIME;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, PROGRAM ": error: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return L2FWD_EXIT_USAGE;
	}
	argc -= ret;
	argv += ret;

	/* From here on, every exit goes through the ports' close and EAL's cleanup. */
	if (install_signals() < 0) {
		fprintf(stderr, PROGRAM ": error: cannot install signal handlers: %s\n",
			strerror(errno));
		goto out;
	}
	ret = parse_options(argc, argv);
	if (ret != 0) {
		status = ret > 0 ? L2FWD_EXIT_OK : L2FWD_EXIT_USAGE;
		goto out;
	}
	if (select_ports() < 0 || assign_lcores() < 0) {
		status = L2FWD_EXIT_USAGE;
		goto out;
	}

	pool = rte_pktmbuf_pool_create("l2fwd_mbufs", mbufs_needed(), MEMPOOL_CACHE, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (!pool) {
		fprintf(stderr, PROGRAM ": error: cannot create a pool of %u mbufs: %s "
			"(give EAL more memory with -m)\n", mbufs_needed(), rte_strerror(rte_errno));
		goto out;
	}
	for (unsigned int i = 0; i < nb_fwd_ports; i++)
		if (start_port(&fwd_ports[i], pool) < 0)
			goto out;

	report.program = PROGRAM;
	report.json = opts.json;
	report.nb_ports = nb_fwd_ports;
	for (unsigned int i = 0; i < nb_fwd_ports; i++) {
		report.port_id[i] = fwd_ports[i].port_id;
		snprintf(report.name[i], sizeof(report.name[i]), "%s", fwd_ports[i].name);
	}
	describe_setup();
	printf(PROGRAM ": forwarding, burst %u, %s; statistics %s; stop with SIGINT or SIGTERM%s\n",
	       opts.burst, opts.mac_updating ? "MAC updating" : "no MAC updating",
	       opts.period ? "periodic" : "at the end", opts.duration > 0 ? " or --duration" : "");
	fflush(stdout);

	mc = main_clock();
	l2fwd_report_start(&report);
	ret = rte_eal_mp_remote_launch(lcore_main, &mc, CALL_MAIN);
	if (ret < 0) {
		fprintf(stderr, PROGRAM ": error: cannot launch the lcores: %s\n", rte_strerror(-ret));
		__atomic_store_n(&quit, true, __ATOMIC_RELAXED);
	}
	rte_eal_mp_wait_lcore();
	if (ret == 0)
		status = L2FWD_EXIT_OK;
	if (quit_signal)
		printf(PROGRAM ": %s: stopping\n", l2fwd_signal_name(quit_signal));
	else
		printf(PROGRAM ": stopping\n");

out:
	if (close_ports() < 0 && status == L2FWD_EXIT_OK)
		status = L2FWD_EXIT_RUNTIME;
	else if (report.program)
		printf(PROGRAM ": ports stopped and closed\n");
	if (report.program)
		print_stats(true);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return status;
}
