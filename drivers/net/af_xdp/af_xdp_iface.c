/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The kernel network interface behind a port: index, MAC address, flags,
 * MTU, queues and link speed, through the classic ioctls; what the kernel's
 * netdev netlink family says of its XDP and AF_XDP features; and what the
 * ports change on it, given back.  Each function returns 0 or a negative
 * errno and leaves the message to its caller, which knows what the user was
 * trying to do.
 */

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/queue.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>

#include <rte_common.h>
#include <rte_string_fns.h>

#include "af_xdp_iface.h"

/* Run one interface ioctl on a throwaway datagram socket. */
static int
iface_ioctl(const char *iface, unsigned long req, struct ifreq *ifr)
{
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	strlcpy(ifr->ifr_name, iface, IFNAMSIZ);
	if (ioctl(fd, req, ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int
ethtool_ioctl(const char *iface, void *cmd)
{
	struct ifreq ifr = { .ifr_data = cmd };

	return iface_ioctl(iface, SIOCETHTOOL, &ifr);
}

int
af_xdp_iface_index(const char *iface)
{
	unsigned int idx = if_nametoindex(iface);

	return idx == 0 ? -errno : (int)idx;
}

int
af_xdp_iface_mac(const char *iface, struct rte_ether_addr *mac)
{
	struct ifreq ifr = { 0 };
	int ret = iface_ioctl(iface, SIOCGIFHWADDR, &ifr);

	if (ret == 0)
		memcpy(mac->addr_bytes, ifr.ifr_hwaddr.sa_data, RTE_ETHER_ADDR_LEN);
	return ret;
}

int
af_xdp_iface_set_mac(const char *iface, const struct rte_ether_addr *mac)
{
	struct ifreq ifr = { 0 };

	ifr.ifr_hwaddr.sa_family = 1;	/* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	return iface_ioctl(iface, SIOCSIFHWADDR, &ifr);
}

int
af_xdp_iface_flags(const char *iface, unsigned int *flags)
{
	struct ifreq ifr = { 0 };
	int ret = iface_ioctl(iface, SIOCGIFFLAGS, &ifr);

	if (ret == 0)
		*flags = (unsigned short)ifr.ifr_flags;
	return ret;
}

int
af_xdp_iface_change_flags(const char *iface, unsigned int set, unsigned int clear)
{
	struct ifreq ifr = { 0 };
	int ret = iface_ioctl(iface, SIOCGIFFLAGS, &ifr);

	if (ret != 0)
		return ret;
	ifr.ifr_flags = (short)((((unsigned short)ifr.ifr_flags) | set) & ~clear);
	return iface_ioctl(iface, SIOCSIFFLAGS, &ifr);
}

int
af_xdp_iface_mtu(const char *iface, unsigned int *mtu)
{
	struct ifreq ifr = { 0 };
	int ret = iface_ioctl(iface, SIOCGIFMTU, &ifr);

	if (ret == 0)
		*mtu = (unsigned int)ifr.ifr_mtu;
	return ret;
}

int
af_xdp_iface_set_mtu(const char *iface, unsigned int mtu)
{
	struct ifreq ifr = { .ifr_mtu = (int)mtu };

	return iface_ioctl(iface, SIOCSIFMTU, &ifr);
}

/* Entries named prefix* in the interface's queues directory. */
static int
count_queues(const char *iface, const char *prefix)
{
	char path[64 + IFNAMSIZ];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", iface);
	dir = opendir(path);
	if (dir == NULL)
		return -errno;
	while ((de = readdir(dir)) != NULL)
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(dir);
	return n;
}

/*
 * Queues an AF_XDP socket with both Rx and Tx rings can bind to: the kernel
 * wants the queue index below both the real Rx and real Tx queue counts.
 * max is what ethtool says the device could be raised to (0 if unknown).
 */
int
af_xdp_iface_channels(const char *iface, uint32_t *max, uint32_t *configured)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	int rx = count_queues(iface, "rx-");
	int tx = count_queues(iface, "tx-");

	if (rx < 0)
		return rx;
	if (tx < 0)
		return tx;
	*configured = (uint32_t)RTE_MIN(rx, tx);
	*max = 0;
	if (ethtool_ioctl(iface, &ch) == 0)
		*max = ch.max_combined != 0 ? ch.max_combined : RTE_MIN(ch.max_rx, ch.max_tx);
	return 0;
}

int
af_xdp_iface_speed(const char *iface, uint32_t *speed_mbps, bool *full_duplex)
{
	struct {
		struct ethtool_link_settings req;
		uint32_t masks[3 * 127];	/* SCHAR_MAX words, 3 masks */
	} ls;
	int ret;

	/* Handshake: the kernel answers the first call with the mask size. */
	memset(&ls, 0, sizeof(ls));
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	ret = ethtool_ioctl(iface, &ls);
	if (ret != 0)
		return ret;
	if (ls.req.link_mode_masks_nwords >= 0 || -ls.req.link_mode_masks_nwords > 127)
		return -EPROTO;
	ls.req.link_mode_masks_nwords = (int8_t)-ls.req.link_mode_masks_nwords;
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	ret = ethtool_ioctl(iface, &ls);
	if (ret != 0)
		return ret;
	*speed_mbps = ls.req.speed == (uint32_t)SPEED_UNKNOWN ? 0 : ls.req.speed;
	*full_duplex = ls.req.duplex != DUPLEX_HALF;
	return 0;
}

/* Ask the kernel, over rtnetlink, for one link; the answer goes to buf. */
static int
get_link(const char *iface, char *buf, size_t len, struct nlmsghdr **answer)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	int fd, ret = 0;
	ssize_t n;

	req.ifi.ifi_index = (int)if_nametoindex(iface);
	if (req.ifi.ifi_index == 0)
		return -errno;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, sizeof(req), 0) < 0 || (n = recv(fd, buf, len, 0)) < 0)
		ret = -errno;
	else if (!NLMSG_OK((struct nlmsghdr *)buf, (size_t)n) ||
		 ((struct nlmsghdr *)buf)->nlmsg_type != RTM_NEWLINK)
		ret = -EPROTO;
	close(fd);
	*answer = (struct nlmsghdr *)buf;
	return ret;
}

int
af_xdp_iface_max_mtu(const char *iface, unsigned int *max_mtu)
{
	char buf[16384] __rte_aligned(NLMSG_ALIGNTO);
	struct nlmsghdr *nh;
	struct rtattr *rta;
	int len, ret;

	ret = get_link(iface, buf, sizeof(buf), &nh);
	if (ret != 0)
		return ret;
	len = (int)IFLA_PAYLOAD(nh);
	for (rta = IFLA_RTA(NLMSG_DATA(nh)); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFLA_MAX_MTU && RTA_PAYLOAD(rta) >= sizeof(uint32_t)) {
			memcpy(max_mtu, RTA_DATA(rta), sizeof(uint32_t));
			return 0;
		}
	}
	return -ENOENT;	/* before Linux 4.19 */
}

const char *
af_xdp_iface_driver(const char *iface, char *buf, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };

	if (ethtool_ioctl(iface, &info) != 0)
		strlcpy(buf, "unknown", len);
	else
		strlcpy(buf, info.driver, len);
	return buf;
}

/*
 * The state given back, in this process's own memory, so that giving it
 * back at exit needs nothing of DPDK's (no port, no shared memory), which
 * the application may have torn down by then.  One entry per interface,
 * shared by the process's ports on it, so that the first port's view of
 * the interface is what the last one restores.
 */
struct kept_iface {
	TAILQ_ENTRY(kept_iface) next;
	char name[IFNAMSIZ];
	int ifindex;
	unsigned int users;
	unsigned int flags;		/* only IFF_PROMISC and IFF_ALLMULTI are given back */
	struct rte_ether_addr mac;
};

static TAILQ_HEAD(, kept_iface) kept = TAILQ_HEAD_INITIALIZER(kept);
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
/* Who kept them: a forked child that exits gives nothing back. */
static pid_t keeper;

static struct kept_iface *
find_kept(const char *iface)
{
	struct kept_iface *k;

	TAILQ_FOREACH(k, &kept, next)
		if (strcmp(k->name, iface) == 0)
			return k;
	return NULL;
}

int
af_xdp_iface_keep(const char *iface)
{
	struct kept_iface *k;
	int ret = 0;

	pthread_mutex_lock(&kept_lock);
	k = find_kept(iface);
	if (k != NULL) {
		k->users++;
		goto out;
	}
	k = calloc(1, sizeof(*k));
	if (k == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	strlcpy(k->name, iface, sizeof(k->name));
	k->ifindex = af_xdp_iface_index(iface);
	ret = k->ifindex < 0 ? k->ifindex : af_xdp_iface_flags(iface, &k->flags);
	if (ret == 0)
		ret = af_xdp_iface_mac(iface, &k->mac);
	if (ret != 0) {
		free(k);
		goto out;
	}
	k->users = 1;
	keeper = getpid();
	TAILQ_INSERT_TAIL(&kept, k, next);
out:
	pthread_mutex_unlock(&kept_lock);
	return ret;
}

static int
restore(const struct kept_iface *k)
{
	const unsigned int ours = IFF_PROMISC | IFF_ALLMULTI;
	struct rte_ether_addr mac;
	unsigned int now;
	int ret;

	if (af_xdp_iface_index(k->name) != k->ifindex)
		return -ENODEV;
	ret = af_xdp_iface_flags(k->name, &now);
	if (ret == 0 && (now & ours) != (k->flags & ours))
		ret = af_xdp_iface_change_flags(k->name, k->flags & ours, ~k->flags & ours);
	if (ret == 0)
		ret = af_xdp_iface_mac(k->name, &mac);
	if (ret == 0 && !rte_is_same_ether_addr(&mac, &k->mac))
		ret = af_xdp_iface_set_mac(k->name, &k->mac);
	return ret;
}

int
af_xdp_iface_give_back(const char *iface)
{
	struct kept_iface *k;
	int ret = 0;

	pthread_mutex_lock(&kept_lock);
	k = find_kept(iface);
	if (k != NULL && --k->users == 0) {
		TAILQ_REMOVE(&kept, k, next);
		ret = restore(k);
		free(k);
	}
	pthread_mutex_unlock(&kept_lock);
	return ret;
}

unsigned int
af_xdp_iface_give_back_all(void (*report)(const char *iface, int err))
{
	struct kept_iface *k;
	unsigned int n = 0;
	int ret;

	pthread_mutex_lock(&kept_lock);
	while ((k = TAILQ_FIRST(&kept)) != NULL) {
		TAILQ_REMOVE(&kept, k, next);
		if (keeper == getpid()) {
			ret = restore(k);
			if (ret != 0)
				report(k->name, ret);
			else
				n++;
		}
		free(k);
	}
	pthread_mutex_unlock(&kept_lock);
	return n;
}

/*
 * One generic netlink request with one attribute; the answer into buf.
 * Its length, or -errno (the kernel's, for an error answer).
 */
static int
genl_call(int fd, uint16_t family, uint8_t cmd, uint16_t attr, const void *val, uint16_t len,
	  char *buf, size_t size)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr g;
		struct nlattr a;
		char val[16];
	} req;
	const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;
	ssize_t n;

	if (len > sizeof(req.val))
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + NLA_ALIGN(NLA_HDRLEN + len));
	req.nh.nlmsg_type = family;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.g.cmd = cmd;
	req.g.version = 1;
	req.a.nla_type = attr;
	req.a.nla_len = NLA_HDRLEN + len;
	memcpy(req.val, val, len);
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, buf, size, 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(nh, (size_t)n))
		return -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nh);

		return e->error != 0 ? e->error : -EPROTO;
	}
	return (int)n;
}

/* Attribute type of a generic netlink answer, size bytes into out; -ENOENT. */
static int
genl_attr(const char *buf, uint16_t type, void *out, size_t size)
{
	const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;
	int left = (int)nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	const struct nlattr *a = (const struct nlattr *)((const char *)NLMSG_DATA(nh) + GENL_HDRLEN);

	while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left) {
		if ((a->nla_type & NLA_TYPE_MASK) == type && (size_t)(a->nla_len - NLA_HDRLEN) >= size) {
			memcpy(out, (const char *)a + NLA_HDRLEN, size);
			return 0;
		}
		left -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return -ENOENT;
}

int
af_xdp_iface_netdev_features(int ifindex, struct af_xdp_netdev_features *f)
{
	char buf[4096] __rte_aligned(NLMSG_ALIGNTO);
	uint32_t index = (uint32_t)ifindex;
	uint16_t family;
	int fd, ret;

	memset(f, 0, sizeof(*f));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	ret = genl_call(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
			NETDEV_GENL_NAME, sizeof(NETDEV_GENL_NAME), buf, sizeof(buf));
	if (ret >= 0)
		ret = genl_attr(buf, CTRL_ATTR_FAMILY_ID, &family, sizeof(family));
	if (ret >= 0)
		ret = genl_call(fd, family, NETDEV_GENL_CMD_DEV_GET, NETDEV_GENL_A_DEV_IFINDEX,
				&index, sizeof(index), buf, sizeof(buf));
	close(fd);
	if (ret < 0)
		return ret;
	f->xdp_rx_metadata_known = genl_attr(buf, NETDEV_GENL_A_DEV_XDP_RX_METADATA_FEATURES,
					     &f->xdp_rx_metadata,
					     sizeof(f->xdp_rx_metadata)) == 0;
	f->xsk_known = genl_attr(buf, NETDEV_GENL_A_DEV_XSK_FEATURES, &f->xsk,
				 sizeof(f->xsk)) == 0;
	return 0;
}
