/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Facts about the interface we send out of, and about its veth peer, which
 * may live in another network namespace: rtnetlink answers for both
 * (RTM_GETLINK with IFLA_TARGET_NETNSID reaches into the peer's namespace
 * through the id our namespace gives it).  The veth's ethtool statistics
 * count the frames redirected into the peer's rings and those dropped
 * because a ring was full: that is how the generator knows what it sent.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "gen.h"

/* What RTM_GETLINK tells about one link. */
struct link_info {
	char name[IF_NAMESIZE];
	uint8_t mac[ETH_ALEN_];
	bool has_mac;
	unsigned int mtu;
	unsigned int rx_queues, tx_queues;
	bool has_stats;
	struct rtnl_link_stats64 stats;
	int link;		/* IFLA_LINK: the veth peer's ifindex, 0 if none */
	int link_netnsid;	/* IFLA_LINK_NETNSID, -1 if absent */
	char kind[16];
	bool xdp_attached;
};

static void
parse_linkinfo(struct link_info *li, const struct rtattr *nest)
{
	int len = RTA_PAYLOAD(nest);

	for (const struct rtattr *a = RTA_DATA(nest); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_INFO_KIND)
			snprintf(li->kind, sizeof(li->kind), "%.*s",
				 (int)RTA_PAYLOAD(a), (const char *)RTA_DATA(a));
}

static void
parse_xdp(struct link_info *li, const struct rtattr *nest)
{
	int len = RTA_PAYLOAD(nest);

	for (const struct rtattr *a = RTA_DATA(nest); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_XDP_ATTACHED)
			li->xdp_attached = *(const uint8_t *)RTA_DATA(a) != XDP_ATTACHED_NONE;
}

/* RTM_GETLINK for ifindex, in the namespace netnsid (-1: ours). */
static int
get_link(int ifindex, int netnsid, struct link_info *li)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[64];
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[16384];
	int fd, len, ret = -EIO;

	memset(li, 0, sizeof(*li));
	li->link_netnsid = -1;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = ifindex;
	if (netnsid >= 0) {
		struct rtattr *a = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));

		a->rta_type = IFLA_TARGET_NETNSID;
		a->rta_len = RTA_LENGTH(sizeof(int32_t));
		*(int32_t *)RTA_DATA(a) = netnsid;
		req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
	}

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto out;
	}
	len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0) {
		ret = -errno;
		goto out;
	}
	for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (unsigned int)len);
	     nh = NLMSG_NEXT(nh, len)) {
		if (nh->nlmsg_type == NLMSG_ERROR) {
			ret = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			goto out;
		}
		if (nh->nlmsg_type != RTM_NEWLINK)
			continue;

		struct ifinfomsg *ifi = NLMSG_DATA(nh);
		int alen = IFLA_PAYLOAD(nh);

		for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			switch (a->rta_type) {
			case IFLA_IFNAME:
				snprintf(li->name, sizeof(li->name), "%s", (char *)RTA_DATA(a));
				break;
			case IFLA_ADDRESS:
				if (RTA_PAYLOAD(a) == ETH_ALEN_) {
					memcpy(li->mac, RTA_DATA(a), ETH_ALEN_);
					li->has_mac = true;
				}
				break;
			case IFLA_MTU:
				li->mtu = *(uint32_t *)RTA_DATA(a);
				break;
			case IFLA_NUM_RX_QUEUES:
				li->rx_queues = *(uint32_t *)RTA_DATA(a);
				break;
			case IFLA_NUM_TX_QUEUES:
				li->tx_queues = *(uint32_t *)RTA_DATA(a);
				break;
			case IFLA_STATS64:
				if (RTA_PAYLOAD(a) >= sizeof(li->stats)) {
					memcpy(&li->stats, RTA_DATA(a), sizeof(li->stats));
					li->has_stats = true;
				}
				break;
			case IFLA_LINK:
				li->link = *(int32_t *)RTA_DATA(a);
				break;
			case IFLA_LINK_NETNSID:
				li->link_netnsid = *(int32_t *)RTA_DATA(a);
				break;
			case IFLA_LINKINFO:
				parse_linkinfo(li, a);
				break;
			case IFLA_XDP:
				parse_xdp(li, a);
				break;
			}
		}
		ret = 0;
		break;
	}
out:
	close(fd);
	return ret;
}

static int
ethtool_ioctl(const char *name, void *cmd)
{
	struct ifreq ifr;
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = cmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Finds tx_queue_<i>_xdp_xmit and tx_queue_<i>_xdp_xmit_errors among the statistics. */
static void
find_xmit_stats(struct gen_iface *ifc)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS } };
	struct ethtool_gstrings *strings = NULL;
	unsigned int n;

	if (ethtool_ioctl(ifc->name, &sset) < 0 || !(sset.hdr.sset_mask & (1ULL << ETH_SS_STATS)))
		return;
	n = sset.len;
	strings = calloc(1, sizeof(*strings) + (size_t)n * ETH_GSTRING_LEN);
	ifc->xmit_idx = calloc(n, sizeof(unsigned int));
	ifc->xmit_err_idx = calloc(n, sizeof(unsigned int));
	if (!strings || !ifc->xmit_idx || !ifc->xmit_err_idx)
		goto out;
	strings->cmd = ETHTOOL_GSTRINGS;
	strings->string_set = ETH_SS_STATS;
	strings->len = n;
	if (ethtool_ioctl(ifc->name, strings) < 0)
		goto out;

	for (unsigned int i = 0; i < n; i++) {
		char s[ETH_GSTRING_LEN + 1];
		unsigned int q;
		int end = 0;

		memcpy(s, strings->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		s[ETH_GSTRING_LEN] = '\0';
		if (sscanf(s, "tx_queue_%u_%n", &q, &end) != 1 || !end)
			continue;
		if (strcmp(s + end, "xdp_xmit") == 0)
			ifc->xmit_idx[ifc->n_xmit++] = i;
		else if (strcmp(s + end, "xdp_xmit_errors") == 0)
			ifc->xmit_err_idx[ifc->n_xmit_err++] = i;
	}
	if (ifc->n_xmit)
		ifc->n_stats = n;
out:
	free(strings);
}

int
gen_iface_xdp_xmit(const struct gen_iface *ifc, uint64_t *xmit, uint64_t *dropped)
{
	struct ethtool_stats *st;
	int ret;

	if (!ifc->n_stats)
		return -ENOTSUP;
	st = calloc(1, sizeof(*st) + (size_t)ifc->n_stats * sizeof(uint64_t));
	if (!st)
		return -ENOMEM;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = ifc->n_stats;
	ret = ethtool_ioctl(ifc->name, st);
	if (ret == 0) {
		*xmit = 0;
		*dropped = 0;
		for (unsigned int i = 0; i < ifc->n_xmit; i++)
			*xmit += st->data[ifc->xmit_idx[i]];
		for (unsigned int i = 0; i < ifc->n_xmit_err; i++)
			*dropped += st->data[ifc->xmit_err_idx[i]];
	}
	free(st);
	return ret;
}

int
gen_iface_tx_stats(const struct gen_iface *ifc, uint64_t *packets, uint64_t *dropped)
{
	struct link_info li;
	int ret = get_link(ifc->ifindex, -1, &li);

	if (ret < 0)
		return ret;
	if (!li.has_stats)
		return -ENOTSUP;
	*packets = li.stats.tx_packets;
	*dropped = li.stats.tx_dropped;
	return 0;
}

int
gen_iface_open(struct gen_iface *ifc, const char *name, char *err, size_t errlen)
{
	struct link_info li, peer;
	int ret;

	memset(ifc, 0, sizeof(*ifc));
	if (strlen(name) >= IF_NAMESIZE) {
		snprintf(err, errlen, "interface name '%s' is longer than %d characters",
			 name, IF_NAMESIZE - 1);
		return -EINVAL;
	}
	ifc->ifindex = (int)if_nametoindex(name);
	if (!ifc->ifindex) {
		snprintf(err, errlen, "no interface '%s' in this network namespace (%s)",
			 name, strerror(errno));
		return -ENODEV;
	}
	ret = get_link(ifc->ifindex, -1, &li);
	if (ret < 0) {
		snprintf(err, errlen, "cannot read link '%s' over rtnetlink: %s", name, strerror(-ret));
		return ret;
	}
	snprintf(ifc->name, sizeof(ifc->name), "%s", li.name);
	ifc->mtu = li.mtu;
	ifc->tx_queues = li.tx_queues;
	memcpy(ifc->mac, li.mac, ETH_ALEN_);
	snprintf(ifc->kind, sizeof(ifc->kind), "%s", li.kind);

	if (strcmp(li.kind, "veth") == 0 && li.link > 0 &&
	    get_link(li.link, li.link_netnsid, &peer) == 0) {
		ifc->has_peer = true;
		snprintf(ifc->peer_name, sizeof(ifc->peer_name), "%s", peer.name);
		ifc->peer_ifindex = li.link;
		ifc->peer_netnsid = li.link_netnsid;
		memcpy(ifc->peer_mac, peer.mac, ETH_ALEN_);
		ifc->peer_mtu = peer.mtu;
		ifc->peer_rx_queues = peer.rx_queues;
		ifc->peer_xdp = peer.xdp_attached;
	}
	find_xmit_stats(ifc);
	/* One xdp_xmit counter per receive queue the peer uses (its real count). */
	if (ifc->has_peer && ifc->n_xmit)
		ifc->peer_rx_queues = ifc->n_xmit;
	return 0;
}

void
gen_iface_close(struct gen_iface *ifc)
{
	free(ifc->xmit_idx);
	free(ifc->xmit_err_idx);
	ifc->xmit_idx = NULL;
	ifc->xmit_err_idx = NULL;
	ifc->n_stats = 0;
}
