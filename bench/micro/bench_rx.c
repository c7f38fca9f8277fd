/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Microbenchmark of the receive path on rings in plain memory: bursts of
 * 64 through one build of the burst (af_xdp_rx_burst_baseline() or
 * af_xdp_rx_burst_x86_64_v3()), fill-ring refill included.  The kernel's
 * side (ring_sim.h) and the application's free run outside the measured
 * region.
 *
 * Prints TSC cycles per packet.  Under valgrind --tool=callgrind
 * --collect-atstart=no only the measured region is collected, so callgrind's
 * instruction total divided by the packet count printed is instructions per
 * packet (bench/micro/run.py does that).
 *
 *   bench_rx [--bursts N] [--burst B] [--ring R] [--frame LEN] [--build baseline|x86-64-v3] [--multi-buffer]
 *            [--huge-dir DIR]   (a hugetlbfs mount: the mempool on hugepages)
 *
 * --multi-buffer measures the burst for frames of several descriptors
 * (sockets bound with XDP_USE_SG): with --frame beyond a chunk, each frame
 * then takes several.
 *
 * --rx-meta measures the burst of a port with Rx offloads (RSS hash and
 * VLAN strip): every frame comes with a valid hash and tag in front of it,
 * as the Rx-metadata program writes them.
 *
 * --rx-cksum measures the burst that checks IPv4 header checksums
 * (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM): every frame is an IPv4 one with a right
 * header, written once into every mbuf (the kernel's copy is not measured).
 * Both (not with --multi-buffer): the burst of a port with both, l3fwd's.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "af_xdp_rx.h"
#include "af_xdp_umem.h"
#include "ring_sim.h"

struct options {
	const char *huge_dir;	/* NULL: 4 KB pages */
	eth_rx_burst_t burst_fn;
	eth_rx_burst_t burst_fn_mb;
	eth_rx_burst_t burst_fn_meta;
	eth_rx_burst_t burst_fn_meta_mb;
	eth_rx_burst_t burst_fn_cksum;
	eth_rx_burst_t burst_fn_meta_cksum;
	bool rx_meta;
	bool rx_cksum;
	const char *build;
	bool multi_buffer;
	unsigned long bursts;
	uint16_t burst;
	uint32_t ring;
	uint32_t frame;
};

static int
parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "bursts", required_argument, NULL, 'n' },
		{ "burst", required_argument, NULL, 'b' },
		{ "ring", required_argument, NULL, 'r' },
		{ "frame", required_argument, NULL, 'f' },
		{ "build", required_argument, NULL, 'i' },
		{ "huge-dir", required_argument, NULL, 'h' },
		{ "multi-buffer", no_argument, NULL, 'm' },
		{ "rx-meta", no_argument, NULL, 'x' },
		{ "rx-cksum", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options) { .bursts = 200000, .burst = 64, .ring = 2048, .frame = 64 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->bursts = strtoul(optarg, NULL, 0); break;
		case 'b': o->burst = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'r': o->ring = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'f': o->frame = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'h': o->huge_dir = optarg; break;
		case 'm': o->multi_buffer = true; break;
		case 'x': o->rx_meta = true; break;
		case 'c': o->rx_cksum = true; break;
		case 'i':
			if (strcmp(optarg, "baseline") == 0) {
				o->burst_fn = af_xdp_rx_burst_baseline;
				o->burst_fn_mb = af_xdp_rx_burst_multi_buffer_baseline;
				o->burst_fn_meta = af_xdp_rx_burst_meta_baseline;
				o->burst_fn_meta_mb = af_xdp_rx_burst_meta_multi_buffer_baseline;
				o->burst_fn_cksum = af_xdp_rx_burst_cksum_baseline;
				o->burst_fn_meta_cksum = af_xdp_rx_burst_meta_cksum_baseline;
#ifdef AF_XDP_HAVE_X86_64_V3
			} else if (strcmp(optarg, "x86-64-v3") == 0) {
				if (!rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) ||
				    !rte_cpu_get_flag_enabled(RTE_CPUFLAG_BMI1) ||
				    !rte_cpu_get_flag_enabled(RTE_CPUFLAG_BMI2)) {
					fprintf(stderr, "this CPU is not x86-64-v3\n");
					return 77;
				}
				o->burst_fn = af_xdp_rx_burst_x86_64_v3;
				o->burst_fn_mb = af_xdp_rx_burst_multi_buffer_x86_64_v3;
				o->burst_fn_meta = af_xdp_rx_burst_meta_x86_64_v3;
				o->burst_fn_meta_mb = af_xdp_rx_burst_meta_multi_buffer_x86_64_v3;
				o->burst_fn_cksum = af_xdp_rx_burst_cksum_x86_64_v3;
				o->burst_fn_meta_cksum = af_xdp_rx_burst_meta_cksum_x86_64_v3;
#endif
			} else {
				fprintf(stderr, "unknown --build %s\n", optarg);
				return -1;
			}
			o->build = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [--bursts N] [--burst B] [--ring R] [--frame LEN] [--build baseline|x86-64-v3] [--multi-buffer] [--rx-meta] [--rx-cksum] [--huge-dir DIR]\n",
				argv[0]);
			return -1;
		}
	}
	if (o->rx_cksum && o->multi_buffer) {
		fprintf(stderr, "--rx-cksum is measured without --multi-buffer\n");
		return -1;
	}
	if (o->burst == 0 || o->burst > 512 || o->ring < AF_XDP_RING_MIN ||
	    (o->ring & (o->ring - 1)) != 0 || o->burst > o->ring - AF_XDP_RX_BATCH) {
		fprintf(stderr, "need 0 < burst <= 512, ring a power of two >= %u, burst <= ring - %u\n",
			AF_XDP_RING_MIN, AF_XDP_RX_BATCH);
		return -1;
	}
	return 0;
}

/* The Rx metadata in front of where the simulated kernel puts a frame, in every mbuf. */
static void
write_meta(struct rte_mempool *mp __rte_unused, void *arg, void *obj,
	   unsigned int idx)
{
	const struct af_xdp_umem_layout *layout = arg;
	uintptr_t chunk = (uintptr_t)obj - layout->mbuf_base;
	struct af_xdp_rx_meta *meta =
		(void *)(layout->area + chunk + AF_XDP_PACKET_HEADROOM - sizeof(*meta));

	*meta = (struct af_xdp_rx_meta){
		.ol_flags = RTE_MBUF_F_RX_RSS_HASH | RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED,
		.vlan_tci = 100, .hash = 0x9e3779b9u * idx,
	};
}

/* An Ethernet and IPv4 header, its checksum right, where the simulated kernel puts a frame. */
static void
write_ipv4(struct rte_mempool *mp __rte_unused, void *arg, void *obj,
	   unsigned int idx __rte_unused)
{
	const struct af_xdp_umem_layout *layout = arg;
	uintptr_t chunk = (uintptr_t)obj - layout->mbuf_base;
	uint8_t *p = (uint8_t *)(layout->area + chunk + AF_XDP_PACKET_HEADROOM);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);

	memset(p, 0, sizeof(*eth) + sizeof(*ip));
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = RTE_BE16(46);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = RTE_BE32(0xc6120001);
	ip->dst_addr = RTE_BE32(0xc6120101);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

int
main(int argc, char **argv)
{
	struct af_xdp_rx_queue rxq __rte_cache_aligned = { 0 };
	struct af_xdp_umem_layout layout;
	struct rte_mbuf *bufs[512];
	struct sim_ring rx, fill;
	struct rte_mempool *mp;
	uint64_t cycles = 0, cycles_with_free = 0, packets = 0;
	uint32_t seq = 0;
	struct options o;
	char err[256];
	unsigned long i;
	int ret;

	ret = parse_options(argc, argv, &o);
	if (ret != 0)
		return ret < 0 ? 2 : ret;	/* 77: this CPU cannot run that build */
	if (sim_eal_init_huge(argv[0], o.huge_dir) < 0)
		return 1;
	if (o.burst_fn == NULL)		/* as the driver chooses, which needs EAL's settings */
		o.burst_fn = af_xdp_rx_burst_select(&(struct af_xdp_rx_burst_kind){
				.multi_buffer = o.multi_buffer, .meta = o.rx_meta,
				.cksum = o.rx_cksum }, &o.build);
	else if (o.rx_meta && o.rx_cksum)
		o.burst_fn = o.burst_fn_meta_cksum;
	else if (o.rx_meta)
		o.burst_fn = o.multi_buffer ? o.burst_fn_meta_mb : o.burst_fn_meta;
	else if (o.rx_cksum)
		o.burst_fn = o.burst_fn_cksum;
	else if (o.multi_buffer)
		o.burst_fn = o.burst_fn_mb;

	/* A cache as an application's would have; more mbufs than in flight. */
	mp = rte_pktmbuf_pool_create("bench_rx", 4 * o.ring + 1024, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL || af_xdp_umem_layout(mp, &layout, err, sizeof(err)) != 0) {
		fprintf(stderr, "mempool: %s\n", mp == NULL ? "cannot create" : err);
		return 1;
	}
	sim_ring_init(&rx, o.ring, sizeof(struct xdp_desc), false);
	sim_ring_init(&fill, o.ring, sizeof(uint64_t), true);
	rxq.mb_pool = mp;
	rxq.port_id = 0;
	af_xdp_rxq_bind(&rxq, &rx.view, &fill.view, &layout, -1);
	rxq.scatter = o.multi_buffer;
	if (o.rx_meta) {
		rxq.rx_meta_ol = RTE_MBUF_F_RX_RSS_HASH | RTE_MBUF_F_RX_VLAN |
				 RTE_MBUF_F_RX_VLAN_STRIPPED;
		rte_mempool_obj_iter(mp, write_meta, &layout);
	}
	if (o.rx_cksum && o.frame >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		rte_mempool_obj_iter(mp, write_ipv4, &layout);
	af_xdp_rxq_fill(&rxq);

	for (i = 0; i < o.bursts; i++) {
		uint64_t t0, t1;
		uint16_t got;

		sim_kernel_receive_mb(&fill, &rx, layout.area,
				      o.multi_buffer ? layout.max_frame : UINT32_MAX, &o.frame, 1,
				      o.burst, false, &seq);
		t0 = rte_rdtsc_precise();
		CALLGRIND_TOGGLE_COLLECT;
		got = o.burst_fn(&rxq, bufs, o.burst);
		CALLGRIND_TOGGLE_COLLECT;
		t1 = rte_rdtsc_precise();
		if (got != o.burst) {
			fprintf(stderr, "burst %lu: got %u of %u\n", i, got, o.burst);
			return 1;
		}
		if (o.rx_meta && !(bufs[0]->ol_flags & RTE_MBUF_F_RX_RSS_HASH)) {
			fprintf(stderr, "burst %lu: no RSS hash from the metadata\n", i);
			return 1;
		}
		if (o.rx_cksum && (bufs[0]->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) !=
				  RTE_MBUF_F_RX_IP_CKSUM_GOOD) {
			fprintf(stderr, "burst %lu: the IPv4 header not checked good\n", i);
			return 1;
		}
		cycles += t1 - t0;
		packets += got;
		rte_pktmbuf_free_bulk(bufs, got);
		cycles_with_free += rte_rdtsc_precise() - t0;
	}

	printf("build %s%s%s%s\n", o.build, o.multi_buffer ? ", multi-buffer" : "",
	       o.rx_meta ? ", rx-meta" : "", o.rx_cksum ? ", rx-cksum" : "");
	printf("packets %" PRIu64 "\n", packets);
	printf("bursts %lu of %u\n", o.bursts, o.burst);
	printf("cycles_per_packet %.2f\n", (double)cycles / (double)packets);
	printf("cycles_per_packet_with_free %.2f\n", (double)cycles_with_free / (double)packets);
	printf("tsc_hz %" PRIu64 "\n", rte_get_tsc_hz());
	rte_mempool_free(mp);
	sim_ring_free(&rx);
	sim_ring_free(&fill);
	rte_eal_cleanup();
	return 0;
}
