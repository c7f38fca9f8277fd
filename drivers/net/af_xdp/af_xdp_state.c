/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The port's state as data (dump_priv): one "key = value" line per fact,
 * lowercase dotted keys, plain tokens as values.  The keys are documented
 * in doc/guides/nics/af_xdp_direct.rst ("Port state"): they are added,
 * never renamed, so that tools and tests can rely on them instead of on
 * the log's sentences.
 *
 * Three sources, each readable from a secondary process too: the port and
 * its queues (shared memory), the kernel (what it offers; a socket's NAPI
 * id and busy-polling options, through the descriptors the primary lends
 * a secondary, af_xdp_mp.c), and the record the primary wrote at start
 * (af_xdp_state_record): the XDP program that steers frames to the port's
 * XSKMAP, which only the primary can find (it holds the map's descriptor),
 * and each socket's facts, copied as values, since the sockets are freed
 * at stop and telemetry may dump from its own thread meanwhile.  A block
 * read while the primary stops the port may mix the two states; read it
 * again.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <ethdev_driver.h>
#include <rte_eal.h>
#include <rte_string_fns.h>
#include <rte_version.h>

#include "af_xdp.h"
#include "af_xdp_iface.h"
#include "af_xdp_intr.h"
#include "af_xdp_kernel.h"
#include "af_xdp_lend.h"
#include "af_xdp_mp.h"
#include "af_xdp_owner.h"
#include "af_xdp_rx_offload.h"
#include "af_xdp_socket.h"
#include "af_xdp_umem.h"
#include "af_xdp_version.h"

/* libxdp's dispatcher, which runs the programs of several users in turn. */
#define DISPATCHER_NAME "xdp_dispatcher"
/* Maps a program may use that are looked at for the XSKMAP. */
#define PROG_MAPS_MAX 64

/*
 * Program id, opened: its info, and whether it uses map map_id.  Its
 * descriptor (the caller closes it), or -errno.
 */
static int
open_prog(uint32_t id, uint32_t map_id, struct bpf_prog_info *info, bool *uses_map)
{
	uint32_t maps[PROG_MAPS_MAX], len = sizeof(*info), i;
	int fd = bpf_prog_get_fd_by_id(id);

	*uses_map = false;
	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	info->nr_map_ids = PROG_MAPS_MAX;
	info->map_ids = (uintptr_t)maps;
	if (bpf_obj_get_info_by_fd(fd, info, &len) != 0) {
		close(fd);
		return -EIO;
	}
	for (i = 0; i < RTE_MIN(info->nr_map_ids, (uint32_t)PROG_MAPS_MAX); i++)
		*uses_map |= maps[i] == map_id;
	return fd;
}

static void
record_program(struct af_xdp_state_record *r, int fd, const struct bpf_prog_info *info)
{
	r->prog_id = info->id;
	strlcpy(r->prog_name, info->name, sizeof(r->prog_name));
	if (af_xdp_owner_read(fd, &r->owner) != 0)
		memset(&r->owner, 0, sizeof(r->owner));
}

/*
 * Under libxdp's dispatcher, each user's program runs as an extension
 * (BPF_PROG_TYPE_EXT) of the dispatcher, which the kernel does not list
 * per interface: ours is the extension that uses our XSKMAP (a map is one
 * process's, so no other program can).
 */
static void
record_component(struct af_xdp_state_record *r, uint32_t map_id)
{
	uint32_t id = 0;

	while (r->prog_id == 0 && bpf_prog_get_next_id(id, &id) == 0) {
		struct bpf_prog_info info;
		bool uses;
		int fd = open_prog(id, map_id, &info, &uses);

		if (fd < 0)
			continue;
		if (uses && info.type == BPF_PROG_TYPE_EXT)
			record_program(r, fd, &info);
		close(fd);
	}
}

/*
 * The program steering to the port's XSKMAP, as the kernel shows the
 * interface: attached itself, or under the dispatcher attached there.
 */
static void
record_xdp(const struct af_xdp_port *port, struct af_xdp_state_record *r)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_map_info map = { 0 };
	uint32_t len = sizeof(map), ids[3];
	static const enum af_xdp_attach_mode modes[3] = {
		AF_XDP_ATTACH_DRV, AF_XDP_ATTACH_SKB, AF_XDP_ATTACH_HW,
	};
	unsigned int k;

	if (port->xskmap_fd < 0 || bpf_obj_get_info_by_fd(port->xskmap_fd, &map, &len) != 0 ||
	    bpf_xdp_query(port->ifindex, 0, &q) != 0)
		return;
	ids[0] = q.drv_prog_id;
	ids[1] = q.skb_prog_id;
	ids[2] = q.hw_prog_id;
	for (k = 0; k < RTE_DIM(ids) && r->prog_id == 0; k++) {
		struct bpf_prog_info info;
		bool uses;
		int fd;

		if (ids[k] == 0)
			continue;
		fd = open_prog(ids[k], map.id, &info, &uses);
		if (fd < 0)
			continue;
		if (uses)
			record_program(r, fd, &info);
		else if (strcmp(info.name, DISPATCHER_NAME) == 0)
			record_component(r, map.id);
		close(fd);
		if (r->prog_id != 0) {
			r->iface_prog_id = ids[k];
			r->attach_mode = modes[k];
		}
	}
}

static void
record_socket(const struct af_xdp_port *port, const struct af_xdp_socket *sock,
	      struct af_xdp_state_queue *q)
{
	const struct af_xdp_umem_layout *layout = af_xdp_umem_layout_of(sock->umem);

	strlcpy(q->pool, af_xdp_umem_pool(sock->umem)->name, sizeof(q->pool));
	q->umem_area = layout->area;
	q->umem_length = layout->size;
	q->umem_gap_bytes = layout->gap_bytes;
	q->chunk_size = layout->chunk_size;
	q->frame_max = layout->max_frame;
	q->netdev_queue = sock->netdev_queue;
	q->ring_rx = sock->rx.size;
	q->ring_fill = sock->fill.size;
	q->ring_tx = sock->tx.size;
	q->ring_comp = sock->comp.size;
	q->zero_copy = sock->zero_copy;
	q->multi_buffer = sock->multi_buffer;
	q->tx_budget = sock->tx_budget;
	q->tx_meta_len = af_xdp_umem_tx_meta_len(sock->umem);
	q->umem_registered = af_xdp_umem_fd(sock->umem) == sock->fd;
	q->umem_own = sock->own_pool != NULL;
	q->umem_own_why = (uint8_t)(q->umem_own ? port->own_umem_why : AF_XDP_UMEM_WHY_NONE);
}

void
af_xdp_state_started(struct rte_eth_dev *dev, const char *rx_build)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct af_xdp_state_record r = { .attach_mode = AF_XDP_ATTACH_AUTO };
	unsigned int i;

	for (i = 0; i < port->nb_socks; i++)
		record_socket(port, port->queues[i].sock, &port->queues[i].state);
	strlcpy(r.rx_build, rx_build, sizeof(r.rx_build));
	record_xdp(port, &r);
	port->state = r;
}

void
af_xdp_state_stopped(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = dev->data->dev_private;
	unsigned int i;

	memset(&port->state, 0, sizeof(port->state));
	for (i = 0; i < port->args.queue_count; i++)
		memset(&port->queues[i].state, 0, sizeof(port->queues[i].state));
}

/* --- the block ------------------------------------------------------------------ */

static const char *
yes_no(bool b)
{
	return b ? "yes" : "no";
}

static const char *
origin_name(const struct af_xdp_devargs *args)
{
	if (args->use_cni)
		return "use_cni";
	if (args->use_pinned_map)
		return "use_pinned_map";
	if (args->xdp_prog[0] != '\0')
		return "xdp_prog";
	return "built-in";
}

/* The built-in program's redirect, and why: the choice af_xdp_prog_choose_redirect made. */
static void
dump_redirect(FILE *f, const struct af_xdp_port *port)
{
	const char *how, *why;

	switch (port->redirect) {
	case AF_XDP_REDIRECT_DIRECT:
		how = "direct";
		why = port->args.redirect == AF_XDP_REDIRECT_DIRECT ? "asked" : "kernel-has-direct";
		break;
	case AF_XDP_REDIRECT_MAP:
		how = "map";
		why = port->args.redirect == AF_XDP_REDIRECT_MAP ? "asked" :
		      port->kernel_batched_map ? "kernel-batches-map" : "kernel-has-no-direct";
		break;
	default:
		how = "none";
		why = "not-built-in";
	}
	fprintf(f, "xdp.redirect = %s\n", how);
	fprintf(f, "xdp.redirect.reason = %s\n", why);
}

/*
 * What the interface's zero-copy transmit takes from Tx metadata, as the
 * kernel reported it at probe (netlink xsk-features, the kernel's names of
 * the flags); left out where it did not (before Linux 6.8).
 */
static void
dump_xsk_features(FILE *f, const struct af_xdp_port *port)
{
	char names[32] = "";
	size_t len;

	if (!port->xsk_features_known)
		return;
	if (port->xsk_features & NETDEV_GENL_XSK_FLAGS_TX_TIMESTAMP)
		rte_strlcat(names, "tx-timestamp,", sizeof(names));
	if (port->xsk_features & NETDEV_GENL_XSK_FLAGS_TX_CHECKSUM)
		rte_strlcat(names, "tx-checksum,", sizeof(names));
	len = strlen(names);
	if (len > 0)
		names[len - 1] = '\0';
	fprintf(f, "iface.xsk_features = %s\n", len > 0 ? names : "none");
}

/* Which driver, which port, on what. */
static void
dump_identity(FILE *f, const struct af_xdp_port *port)
{
	char running[32];

	fprintf(f, "driver = %s\n", AF_XDP_PROJECT);
	fprintf(f, "driver.version = %s\n", AF_XDP_DIRECT_VERSION);
	fprintf(f, "dpdk.built_for = %s\n", af_xdp_dpdk_built_for());
	fprintf(f, "dpdk.running = %s\n",
		af_xdp_dpdk_version_str(RTE_VERSION_NUM(rte_version_year(), rte_version_month(),
							rte_version_minor(), rte_version_release()),
					running, sizeof(running)));
	/* the release of the driver-SDK headers: built_for's, or another of its line */
	fprintf(f, "dpdk.sdk_headers = %s\n", AF_XDP_DPDK_SDK_VERSION);
	fprintf(f, "libxdp.built_for = %s\n", AF_XDP_LIBXDP_VERSION);
	/* closing the descriptors libxdp before 1.4.1 leaks (af_xdp_libxdp.c) */
	fprintf(f, "libxdp.leak_guard = %s\n", AF_XDP_LIBXDP_LEAKS_PROG_FDS ? "on" : "off");
	fprintf(f, "port = %u\n", port->port_id);
	fprintf(f, "name = %s\n", port->name);
	fprintf(f, "state = %s\n", port->started ? "started" : "stopped");
	fprintf(f, "iface = %s\n", port->args.iface);
	fprintf(f, "iface.ifindex = %d\n", port->ifindex);
	fprintf(f, "iface.queues = %u\n", port->max_queues);
	dump_xsk_features(f, port);
	fprintf(f, "queues.start = %u\n", port->args.start_queue);
	fprintf(f, "queues.count = %u\n", port->args.queue_count);
}

/* The XDP program asked for, the redirect chosen, and what the kernel offers (found at probe). */
static void
dump_xdp_choice(FILE *f, const struct af_xdp_port *port)
{
	fprintf(f, "xdp.origin = %s\n", origin_name(&port->args));
	if (port->args.xdp_prog[0] != '\0')
		fprintf(f, "xdp.prog_path = %s\n", port->args.xdp_prog);
	if (port->args.use_cni || port->args.use_pinned_map)
		fprintf(f, "xdp.dp_path = %s\n", port->args.dp_path);
	fprintf(f, "xdp.attach_mode.asked = %s\n", port->args.mode == AF_XDP_ATTACH_AUTO ?
		"auto" : af_xdp_attach_mode_name(port->args.mode));
	dump_redirect(f, port);
	fprintf(f, "kernel.direct_redirect = %s\n", yes_no(port->kernel_direct));
	fprintf(f, "kernel.batched_map = %s\n", yes_no(port->kernel_batched_map));
	fprintf(f, "kernel.multi_buffer = %s\n", yes_no(port->kernel_multi_buffer));
	fprintf(f, "kernel.multi_buffer.reason = %s\n",
		af_xdp_kernel_mb_why_name((enum af_xdp_kernel_mb_why)port->kernel_multi_buffer_why));
}

/*
 * The Rx offloads from the XDP metadata: those the port offers (or none,
 * and why: found at probe), those the configuration's RSS mode implied, and
 * those in force while started; whether the burst checks IPv4 header
 * checksums; and where a VLAN tag the interface kept out of the frame goes.
 */
static void
dump_rx_offloads(FILE *f, const struct af_xdp_port *port)
{
	fprintf(f, "rx.offloads.capa = %s\n",
		af_xdp_rx_meta_names(af_xdp_rx_meta_want(port->rx_meta_capa)));
	fprintf(f, "rx.offloads.capa.reason = %s\n",
		af_xdp_rx_capa_why_name(port->rx_meta_capa_why));
	if (port->rx_meta_probed != 0)
		fprintf(f, "rx.offloads.capa.probed = %s\n",
			af_xdp_rx_meta_names(port->rx_meta_probed));
	if (port->rx_meta_refused[0] != '\0')
		fprintf(f, "rx.offloads.capa.refused = %s\n", port->rx_meta_refused);
	fprintf(f, "rx.offloads.implied = %s\n", af_xdp_rx_meta_names(port->rx_meta_implied));
	fprintf(f, "rx.offloads = %s\n", af_xdp_rx_meta_names(port->rx_meta));
	fprintf(f, "rx.cksum = %s\n", port->rx_cksum ? "ipv4" : "none");
	fprintf(f, "rx.vlan = %s\n", (port->rx_meta & AF_XDP_RX_META_VLAN) ? "stripped" :
		(port->rx_meta & AF_XDP_RX_META_VLAN_INLINE) ? "reinserted" : "as-received");
}

/* The devargs that shape the sockets, and the frame limits. */
static void
dump_config(FILE *f, struct rte_eth_dev *dev)
{
	const struct af_xdp_port *port = dev->data->dev_private;
	struct rte_eth_dev_info info;

	fprintf(f, "force_copy = %s\n", yes_no(port->args.force_copy));
	fprintf(f, "shared_umem = %s\n", yes_no(port->args.shared_umem));
	fprintf(f, "busy_poll.budget = %u\n", port->args.busy_budget);
	fprintf(f, "tx_budget = %s\n",
		port->args.tx_budget == AF_XDP_TX_BUDGET_KERNEL ? "kernel" : "auto");
	fprintf(f, "mtu = %u\n", dev->data->mtu);
	if (rte_eth_dev_info_get(port->port_id, &info) == 0) {
		fprintf(f, "mtu.max = %u\n", info.max_mtu);
		fprintf(f, "frame.max = %u\n", info.max_rx_pktlen);
	}
	dump_rx_offloads(f, port);
	fprintf(f, "rx_queues = %u\n", dev->data->nb_rx_queues);
	fprintf(f, "tx_queues = %u\n", dev->data->nb_tx_queues);
}

/* What the start recorded: the receive burst and the XDP program. */
static void
dump_started(FILE *f, struct rte_eth_dev *dev)
{
	const struct af_xdp_port *port = dev->data->dev_private;
	const struct af_xdp_state_record *r = &port->state;

	fprintf(f, "driver.build = %s\n", r->rx_build);
	/* Start chose the burst by queue 0's socket, as here. */
	fprintf(f, "rx.burst = %s\n", port->queues[0].state.multi_buffer ? "multi-buffer" : "single");
	/* What the frame policy asked of the kernel at bind, and why (af_xdp_frame.h). */
	fprintf(f, "frame.multi_buffer = %s\n", yes_no(port->frame.multi_buffer));
	fprintf(f, "frame.multi_buffer.reason = %s\n", af_xdp_frame_mb_name(port->frame.mb));
	fprintf(f, "frame.largest = %u\n", port->frame.largest);
	fprintf(f, "frame.chunk = %u\n", port->frame.chunk_frame);
	if (r->prog_id == 0) {
		fprintf(f, "xdp.program = none\n");
		return;
	}
	fprintf(f, "xdp.program = %s\n", r->prog_name);
	fprintf(f, "xdp.program_id = %" PRIu32 "\n", r->prog_id);
	fprintf(f, "xdp.attached_id = %" PRIu32 "\n", r->iface_prog_id);
	fprintf(f, "xdp.attach_mode = %s\n", af_xdp_attach_mode_name(r->attach_mode));
	fprintf(f, "xdp.dispatcher = %s\n", yes_no(r->iface_prog_id != r->prog_id));
	if (r->owner.magic != AF_XDP_OWNER_MAGIC) {
		fprintf(f, "xdp.owner = none\n");
		return;
	}
	fprintf(f, "xdp.owner = mark\n");
	fprintf(f, "xdp.owner.pid = %" PRIu32 "\n", (uint32_t)r->owner.pid);
	fprintf(f, "xdp.owner.start_time = %" PRIu64 "\n", (uint64_t)r->owner.start_time);
	fprintf(f, "xdp.owner.pid_ns = %" PRIu64 "\n", (uint64_t)r->owner.pid_ns);
}

/*
 * Busy polling: on, pending (no frame yet tells whether the socket has a
 * NAPI context), or off and why: budget-zero (busy_budget=0),
 * rx-interrupts (intr_conf.rxq: not set up, on purpose, af_xdp_intr.c),
 * refused (the kernel refused the socket options: the socket's busy-poll
 * time reads 0), no-napi-id (the first frames showed none), unknown (no
 * socket to ask).
 */
static void
dump_busy_poll(FILE *f, uint16_t i, const struct af_xdp_port *port,
	       const struct af_xdp_rx_queue *rxq, int fd, bool rx_intr)
{
	int usecs = -1;

	if (fd >= 0 && af_xdp_socket_busy_poll_usecs(fd, &usecs) == 0)
		fprintf(f, "queue.%u.busy_poll.usecs = %d\n", i, usecs);
	if (rxq->busy_poll) {
		fprintf(f, "queue.%u.busy_poll = %s\n", i, rxq->busy_poll_check ? "pending" : "on");
		return;
	}
	fprintf(f, "queue.%u.busy_poll = off\n", i);
	fprintf(f, "queue.%u.busy_poll.reason = %s\n", i,
		port->args.busy_budget == 0 ? "budget-zero" : rx_intr ? "rx-interrupts" :
		usecs == 0 ? "refused" : usecs < 0 ? "unknown" : "no-napi-id");
}

/*
 * The Tx descriptors one sendto() sends in copy mode: the budget the
 * socket raised (XDP_MAX_TX_SKB_BUDGET, Linux 6.17+), else the kernel's
 * default; none where sendto() sends nothing itself (zero-copy, no Tx ring).
 */
static void
dump_tx_budget(FILE *f, uint16_t i, const struct af_xdp_state_queue *q)
{
	if (q->zero_copy || q->ring_tx == 0)
		fprintf(f, "queue.%u.tx_skb_budget = none\n", i);
	else if (q->tx_budget == 0)
		fprintf(f, "queue.%u.tx_skb_budget = default\n", i);
	else
		fprintf(f, "queue.%u.tx_skb_budget = %u\n", i, q->tx_budget);
}

/*
 * Tx metadata (the L4 checksums left to the kernel): registered with the
 * UMEM, or not because tx_csum=sw asked for none or the kernel refused it
 * (XDP_UMEM_TX_METADATA_LEN, Linux 6.11+; the driver computes them then).
 */
static void
dump_tx_metadata(FILE *f, uint16_t i, const struct af_xdp_port *port,
		 const struct af_xdp_state_queue *q)
{
	fprintf(f, "queue.%u.tx_metadata = %s\n", i, yes_no(q->tx_meta_len != 0));
	fprintf(f, "queue.%u.tx_metadata.reason = %s\n", i,
		q->tx_meta_len != 0 ? "registered" :
		port->args.tx_csum == AF_XDP_TX_CSUM_SW ? "tx-csum-sw" : "kernel-refused");
}

/* Queue index i's socket: fd is its descriptor in this process, -1 if none. */
static void
dump_queue(FILE *f, struct rte_eth_dev *dev, uint16_t i, int fd)
{
	const struct af_xdp_port *port = dev->data->dev_private;
	const struct af_xdp_state_queue *q = &port->queues[i].state;
	const struct af_xdp_rx_queue *rxq =
		i < dev->data->nb_rx_queues ? dev->data->rx_queues[i] : NULL;
	unsigned int napi_id;

	fprintf(f, "queue.%u.netdev_queue = %u\n", i, q->netdev_queue);
	fprintf(f, "queue.%u.mode = %s\n", i, q->zero_copy ? "zero-copy" : "copy");
	fprintf(f, "queue.%u.multi_buffer = %s\n", i, yes_no(q->multi_buffer));
	fprintf(f, "queue.%u.ring.rx = %u\n", i, q->ring_rx);
	fprintf(f, "queue.%u.ring.fill = %u\n", i, q->ring_fill);
	fprintf(f, "queue.%u.ring.tx = %u\n", i, q->ring_tx);
	fprintf(f, "queue.%u.ring.completion = %u\n", i, q->ring_comp);
	dump_tx_budget(f, i, q);
	dump_tx_metadata(f, i, port, q);
	fprintf(f, "queue.%u.umem.chunk_size = %u\n", i, q->chunk_size);
	fprintf(f, "queue.%u.umem.headroom = %u\n", i, AF_XDP_PACKET_HEADROOM);
	fprintf(f, "queue.%u.umem.frame_max = %u\n", i, q->frame_max);
	fprintf(f, "queue.%u.umem.area = 0x%" PRIxPTR "\n", i, q->umem_area);
	fprintf(f, "queue.%u.umem.length = %zu\n", i, q->umem_length);
	fprintf(f, "queue.%u.umem.gap_bytes = %zu\n", i, q->umem_gap_bytes);
	fprintf(f, "queue.%u.umem.pool = %s\n", i, q->pool);
	fprintf(f, "queue.%u.umem.registered = %s\n", i, yes_no(q->umem_registered));
	fprintf(f, "queue.%u.umem.owner = %s\n", i, q->umem_own ? "driver" : "mempool");
	fprintf(f, "queue.%u.umem.owner.reason = %s\n", i,
		af_xdp_umem_why_name((enum af_xdp_umem_why)q->umem_own_why));
	if (fd >= 0 && af_xdp_socket_napi_id(fd, &napi_id) == 0)
		fprintf(f, "queue.%u.napi_id = %u\n", i, napi_id);
	if (rxq != NULL)
		dump_busy_poll(f, i, port, rxq, fd, af_xdp_intr_rxq(dev));
}

static void
dump_queues(FILE *f, struct rte_eth_dev *dev)
{
	const struct af_xdp_port *port = dev->data->dev_private;
	uint16_t i, n = RTE_MIN(port->nb_socks, (unsigned int)RTE_MAX_QUEUES_PER_PORT);
	int fds[RTE_MAX_QUEUES_PER_PORT];

	/* Copies: telemetry dumps from its own thread, while a stop may close the sockets. */
	for (i = 0; i < n; i++)
		fds[i] = -1;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		af_xdp_mp_get_fds(port, fds, n);
	else
		af_xdp_lend_fds(port->name, 0, n, fds);
	for (i = 0; i < n; i++) {
		dump_queue(f, dev, i, fds[i]);
		if (fds[i] >= 0)
			close(fds[i]);
	}
}

int
af_xdp_state_dump(struct rte_eth_dev *dev, FILE *f)
{
	const struct af_xdp_port *port = dev->data->dev_private;

	dump_identity(f, port);
	dump_xdp_choice(f, port);
	dump_config(f, dev);
	if (port->started) {
		dump_started(f, dev);
		dump_queues(f, dev);
	}
	/* Last: a reader that misses it has a block cut short (telemetry keeps 8 KiB). */
	fprintf(f, "end = yes\n");
	return 0;
}
