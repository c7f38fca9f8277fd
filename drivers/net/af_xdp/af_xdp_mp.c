/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Secondary processes.  The rings are mapped in the primary only, so a
 * secondary (dpdk-proc-info, for instance) does not move packets; it reads
 * and resets statistics.  The driver's counters are in shared memory
 * already; the kernel's need a socket descriptor, which the primary passes
 * over EAL's multi-process channel, at most RTE_MP_MAX_FD_NUM per message.
 * The primary answers from EAL's multi-process thread while the port may be
 * stopping in another: it sends copies of what a started port lends
 * (af_xdp_lend.h), never reads the port's sockets, and refuses a stopped
 * port's request, saying so (its kernel counters were folded into the
 * port's at the stop: the secondary needs no socket for them).
 *
 * A secondary that has not loaded this plugin probes our ports with DPDK's
 * stock net_af_xdp (dpdk-dumpcap, which takes no -d, does), and that driver
 * asks for its sockets under its own action name.  It would then run its
 * own ops over our private data, which it reads as its own structure: its
 * request is refused.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ethdev_driver.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_string_fns.h>

#include "af_xdp_lend.h"
#include "af_xdp_mp.h"

/* Distinct from the stock driver's, so both plugins can be loaded. */
#define AF_XDP_MP_ACTION "af_xdp_direct_fds"
#define AF_XDP_MP_TIMEOUT_S 1
/* What the stock driver's secondary asks (DPDK 22.11 rte_eth_af_xdp.c). */
#define STOCK_MP_ACTION "afxdp_mp_send_fds"

/* Socket descriptors from `first` on, or the program's counters map. */
#define FDS_FALLBACKS_MAP UINT16_MAX

struct fds_request {
	char port[RTE_ETH_NAME_MAX_LEN];
	uint16_t first;
};

/*
 * Which of the count slots have a descriptor, one bit each: fds[] holds the
 * present ones, in order. A bitmap, because a message carries up to 8
 * descriptors in DPDK 22.11 but 253 from 24.11 on, in the same 256 bytes.
 */
struct fds_reply {
	uint16_t first;
	uint16_t count;
	uint8_t present[(RTE_MP_MAX_FD_NUM + 7) / 8];
	int32_t err;	/* 0, or -EAGAIN: stopped, -ENODEV: no such port, -errno */
};

static inline void
set_present(struct fds_reply *rep, uint16_t i)
{
	rep->present[i / 8] |= 1u << (i % 8);
}

static inline bool
is_present(const struct fds_reply *rep, uint16_t i)
{
	return rep->present[i / 8] & (1u << (i % 8));
}

static unsigned int mp_users;

/* Copies of what the port lends, into msg and rep; -errno when none. */
static int
lend_fds(const struct fds_request *req, struct rte_mp_msg *msg, struct fds_reply *rep)
{
	int fds[RTE_MP_MAX_FD_NUM];
	int i, n;

	if (req->first == FDS_FALLBACKS_MAP) {
		n = af_xdp_lend_fallbacks_fd(req->port, &fds[0]);
		if (n == 0)
			n = fds[0] >= 0 ? 1 : 0;
	} else {
		n = af_xdp_lend_fds(req->port, req->first, RTE_MP_MAX_FD_NUM, fds);
	}
	if (n < 0)
		return n;
	rep->count = (uint16_t)n;
	for (i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		set_present(rep, i);
		msg->fds[msg->num_fds++] = fds[i];
	}
	return 0;
}

static int
send_fds(const struct rte_mp_msg *request, const void *peer)
{
	struct fds_request req;
	struct rte_mp_msg msg = { 0 };
	struct fds_reply *rep = (void *)msg.param;
	int i, ret;

	RTE_BUILD_BUG_ON(sizeof(*rep) > RTE_MP_MAX_PARAM_LEN);
	strlcpy(msg.name, AF_XDP_MP_ACTION, sizeof(msg.name));
	msg.len_param = sizeof(*rep);
	if (request->len_param != sizeof(req)) {
		rep->err = -EINVAL;
		return rte_mp_reply(&msg, peer) < 0 ? -rte_errno : 0;
	}
	memcpy(&req, request->param, sizeof(req));
	req.port[sizeof(req.port) - 1] = '\0';
	rep->first = req.first;
	rep->err = lend_fds(&req, &msg, rep);
	if (rep->err == -ENOENT)
		rep->err = rte_eth_dev_allocated(req.port) != NULL ? -EAGAIN : -ENODEV;
	ret = rte_mp_reply(&msg, peer) < 0 ? -rte_errno : 0;
	/* The message carried copies of its own, made by the kernel as it went. */
	for (i = 0; i < msg.num_fds; i++)
		close(msg.fds[i]);
	return ret;
}

/*
 * The stock driver's secondary accepts a reply only with one descriptor per
 * Rx queue, and fails its probe otherwise, saying "Incorrect number of fds
 * received: 0 != <queues>": a reply without descriptors is a refusal it
 * reports at once.  A port without Rx queues (not configured yet) would
 * accept that reply, so it gets none: the request times out, which fails
 * the probe too.  The message that says what to do is the primary's.
 */
static int
refuse_stock_secondary(const struct rte_mp_msg *request, const void *peer)
{
	struct rte_mp_msg msg = { 0 };
	char port[RTE_ETH_NAME_MAX_LEN];
	size_t len = RTE_MIN(sizeof(port) - 1, (size_t)RTE_MAX(request->len_param, 0));
	struct rte_eth_dev *dev;

	memcpy(port, request->param, len);
	port[len] = '\0';
	AF_XDP_LOG(NOTICE, "%s: refused a secondary process that probed this port with DPDK's stock net_af_xdp driver, which cannot drive %s's ports; run the tool through %s's scripts/afxdp-secondary.sh, which loads this plugin into it",
		   port, AF_XDP_PROJECT, AF_XDP_PROJECT);
	dev = rte_eth_dev_allocated(port);
	if (dev == NULL || dev->data->nb_rx_queues == 0)
		return 0;
	strlcpy(msg.name, STOCK_MP_ACTION, sizeof(msg.name));
	strlcpy((char *)msg.param, port, sizeof(port));	/* as the stock primary answers */
	msg.len_param = sizeof(port);
	return rte_mp_reply(&msg, peer) < 0 ? -rte_errno : 0;
}

static int
register_action(const char *name, rte_mp_t handler)
{
	if (rte_mp_action_register(name, handler) == 0 || rte_errno == EEXIST)
		return 0;
	if (rte_errno == ENOTSUP) {
		/* Multi-process is disabled (--no-shconf, --in-memory): nobody can ask. */
		return 0;
	}
	AF_XDP_LOG(ERR, "cannot register the multi-process action %s: %s", name,
		   rte_strerror(rte_errno));
	return -rte_errno;
}

int
af_xdp_mp_init_primary(void)
{
	int ret;

	if (mp_users++ != 0)
		return 0;
	ret = register_action(AF_XDP_MP_ACTION, send_fds);
	if (ret == 0)
		ret = register_action(STOCK_MP_ACTION, refuse_stock_secondary);
	if (ret != 0) {
		rte_mp_action_unregister(AF_XDP_MP_ACTION);
		mp_users--;
	}
	return ret;
}

void
af_xdp_mp_uninit_primary(void)
{
	if (mp_users == 0 || --mp_users != 0)
		return;
	rte_mp_action_unregister(STOCK_MP_ACTION);
	rte_mp_action_unregister(AF_XDP_MP_ACTION);
}

/* Fetch up to RTE_MP_MAX_FD_NUM descriptors from first on; returns how many slots. */
static int
get_some_fds(const struct af_xdp_port *port, uint16_t first, int *fds, uint16_t n)
{
	struct rte_mp_msg msg = { 0 };
	struct fds_request *req = (void *)msg.param;
	struct timespec timeout = { .tv_sec = AF_XDP_MP_TIMEOUT_S };
	struct rte_mp_reply reply = { 0 };
	const struct fds_reply *rep;
	int i, k = 0, count = 0;

	strlcpy(msg.name, AF_XDP_MP_ACTION, sizeof(msg.name));
	msg.len_param = sizeof(*req);
	strlcpy(req->port, port->name, sizeof(req->port));
	req->first = first;
	if (rte_mp_request_sync(&msg, &reply, &timeout) != 0 || reply.nb_received != 1) {
		AF_XDP_PORT_LOG(WARNING, port,
				"the primary process did not pass the socket descriptors: kernel counters read as 0");
		free(reply.msgs);
		return 0;
	}
	rep = (const void *)reply.msgs[0].param;
	if (rep->err != 0) {
		if (rep->err == -EAGAIN)
			AF_XDP_PORT_LOG(DEBUG, port,
					"the port is stopped in the primary process: its kernel counters are the ones kept at the stop");
		else
			AF_XDP_PORT_LOG(WARNING, port,
					"the primary process did not pass the socket descriptors (%s): kernel counters read as 0",
					strerror(-rep->err));
		free(reply.msgs);
		return 0;
	}
	for (i = 0; i < rep->count && i < RTE_MP_MAX_FD_NUM; i++) {
		int fd = is_present(rep, i) && k < reply.msgs[0].num_fds ? reply.msgs[0].fds[k++] : -1;
		unsigned int slot = first == FDS_FALLBACKS_MAP ? (unsigned int)i : first + (unsigned int)i;

		if (slot < n)
			fds[slot] = fd;
		else if (fd >= 0)
			close(fd);
	}
	count = rep->count;
	free(reply.msgs);
	return count;
}

int
af_xdp_mp_get_fallbacks_fd(const struct af_xdp_port *port)
{
	int fd = -1;

	/* Only the built-in direct program counts; nothing to ask otherwise. */
	if (port->redirect != AF_XDP_REDIRECT_DIRECT)
		return -1;
	get_some_fds(port, FDS_FALLBACKS_MAP, &fd, 1);
	return fd;
}

void
af_xdp_mp_get_fds(const struct af_xdp_port *port, int *fds, uint16_t n)
{
	uint16_t first = 0;
	int got;

	while (first < n) {
		got = get_some_fds(port, first, fds, n);
		if (got <= 0)
			break;
		first = (uint16_t)(first + got);
	}
}
