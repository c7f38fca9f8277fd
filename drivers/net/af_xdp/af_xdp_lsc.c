/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Link status change events.  While a port runs with intr_conf.lsc set, a
 * netlink socket subscribed to link notifications sits in EAL's interrupt
 * thread; when the kernel announces a change of our interface and the port's
 * link status moves, the application's RTE_ETH_EVENT_INTR_LSC callbacks run
 * (testpmd prints "Port 0: link state change event").
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <ethdev_driver.h>
#include <rte_interrupts.h>
#include <rte_malloc.h>

#include "af_xdp.h"

struct af_xdp_lsc {
	struct rte_intr_handle *intr;
	int fd;
};

/* Does any message in the buffer concern our interface? */
static bool
concerns(const char *buf, ssize_t len, int ifindex)
{
	const struct nlmsghdr *nh;

	for (nh = (const void *)buf; NLMSG_OK(nh, (size_t)len); nh = NLMSG_NEXT(nh, len)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(nh);

		if ((nh->nlmsg_type == RTM_NEWLINK || nh->nlmsg_type == RTM_DELLINK) &&
		    ifi->ifi_index == ifindex)
			return true;
	}
	return false;
}

static void
lsc_event(void *arg)
{
	struct rte_eth_dev *dev = arg;
	struct af_xdp_port *port = dev->data->dev_private;
	char buf[8192] __rte_aligned(NLMSG_ALIGNTO);
	bool ours = false;
	ssize_t n;

	if (port->lsc == NULL)
		return;
	while ((n = recv(port->lsc->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		ours |= concerns(buf, n, port->ifindex);
	if (ours && af_xdp_link_update(dev, 0) == 0)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
}

static int
open_link_monitor(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

int
af_xdp_lsc_start(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct af_xdp_lsc *lsc;
	int ret;

	if (!dev->data->dev_conf.intr_conf.lsc || port->lsc != NULL)
		return 0;
	lsc = rte_zmalloc("af_xdp_lsc", sizeof(*lsc), 0);
	if (lsc == NULL)
		return -ENOMEM;
	lsc->fd = open_link_monitor();
	if (lsc->fd < 0) {
		ret = lsc->fd;
		goto err;
	}
	lsc->intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	ret = -ENOMEM;
	if (lsc->intr == NULL || rte_intr_type_set(lsc->intr, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_fd_set(lsc->intr, lsc->fd) != 0)
		goto err;
	ret = rte_intr_callback_register(lsc->intr, lsc_event, dev);
	if (ret != 0)
		goto err;
	port->lsc = lsc;
	return 0;
err:
	AF_XDP_PORT_LOG(ERR, port, "cannot watch the link of %s for changes: %s",
			port->args.iface, strerror(-ret));
	rte_intr_instance_free(lsc->intr);
	if (lsc->fd >= 0)
		close(lsc->fd);
	rte_free(lsc);
	return ret;
}

void
af_xdp_lsc_stop(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct af_xdp_lsc *lsc = port->lsc;

	if (lsc == NULL)
		return;
	/* Waits for a callback in progress, which may not take port->lsc away. */
	rte_intr_callback_unregister_sync(lsc->intr, lsc_event, dev);
	port->lsc = NULL;
	rte_intr_instance_free(lsc->intr);
	close(lsc->fd);
	rte_free(lsc);
}
