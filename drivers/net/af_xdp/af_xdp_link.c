/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Link state: read from the interface on demand, set up and down through
 * it, and change events.  For the events, while a port runs with
 * intr_conf.lsc set, a netlink socket subscribed to link notifications sits
 * in EAL's interrupt thread; when the kernel announces a change of our
 * interface and the port's link status moves, the application's
 * RTE_ETH_EVENT_INTR_LSC callbacks run (testpmd prints "Port 0: link state
 * change event").
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <net/if.h>

#include <ethdev_driver.h>
#include <rte_interrupts.h>
#include <rte_malloc.h>

#include "af_xdp.h"
#include "af_xdp_iface.h"
#include "af_xdp_link.h"

struct af_xdp_link_events {
	struct rte_intr_handle *intr;
	int fd;
};

int
af_xdp_link_update(struct rte_eth_dev *dev, int wait_to_complete __rte_unused)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct rte_eth_link link = {
		.link_autoneg = RTE_ETH_LINK_FIXED,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
	};
	unsigned int flags = 0;
	uint32_t speed = 0;
	bool full = true;

	if (af_xdp_iface_flags(port->args.iface, &flags) == 0 && port->started &&
	    (flags & IFF_UP) && (flags & IFF_RUNNING)) {
		link.link_status = RTE_ETH_LINK_UP;
		if (af_xdp_iface_speed(port->args.iface, &speed, &full) == 0 && speed != 0)
			link.link_speed = speed;
		else
			link.link_speed = RTE_ETH_SPEED_NUM_UNKNOWN;
		link.link_duplex = full ? RTE_ETH_LINK_FULL_DUPLEX : RTE_ETH_LINK_HALF_DUPLEX;
	}
	return rte_eth_linkstatus_set(dev, &link);
}

static int
set_link(struct rte_eth_dev *dev, bool up)
{
	struct af_xdp_port *port = dev->data->dev_private;
	int ret = af_xdp_iface_change_flags(port->args.iface, up ? IFF_UP : 0, up ? 0 : IFF_UP);

	if (ret != 0)
		AF_XDP_PORT_LOG(ERR, port, "cannot bring the link of %s %s: %s", port->args.iface,
				up ? "up" : "down", strerror(-ret));
	af_xdp_link_update(dev, 0);
	return ret;
}

int
af_xdp_link_set_up(struct rte_eth_dev *dev)
{
	return set_link(dev, true);
}

int
af_xdp_link_set_down(struct rte_eth_dev *dev)
{
	return set_link(dev, false);
}

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

	if (port->link_events == NULL)
		return;
	while ((n = recv(port->link_events->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
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
af_xdp_link_events_start(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct af_xdp_link_events *ev;
	int ret;

	if (!dev->data->dev_conf.intr_conf.lsc || port->link_events != NULL)
		return 0;
	ev = rte_zmalloc("af_xdp_link_events", sizeof(*ev), 0);
	if (ev == NULL)
		return -ENOMEM;
	ev->fd = open_link_monitor();
	if (ev->fd < 0) {
		ret = ev->fd;
		goto err;
	}
	ev->intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	ret = -ENOMEM;
	if (ev->intr == NULL || rte_intr_type_set(ev->intr, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_fd_set(ev->intr, ev->fd) != 0)
		goto err;
	ret = rte_intr_callback_register(ev->intr, lsc_event, dev);
	if (ret != 0)
		goto err;
	port->link_events = ev;
	return 0;
err:
	AF_XDP_PORT_LOG(ERR, port, "cannot watch the link of %s for changes: %s",
			port->args.iface, strerror(-ret));
	rte_intr_instance_free(ev->intr);
	if (ev->fd >= 0)
		close(ev->fd);
	rte_free(ev);
	return ret;
}

void
af_xdp_link_events_stop(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct af_xdp_link_events *ev = port->link_events;

	if (ev == NULL)
		return;
	/* Waits for a callback in progress, which may not take the events away. */
	rte_intr_callback_unregister_sync(ev->intr, lsc_event, dev);
	port->link_events = NULL;
	rte_intr_instance_free(ev->intr);
	close(ev->fd);
	rte_free(ev);
}
