/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * use_cni=1: the AF_XDP device plugin for Kubernetes loads the XDP program
 * and hands its XSKMAP to the pod over a Unix seqpacket socket.  The
 * exchange, one request and one answer at a time:
 *
 *   /connect,<hostname>   -> /host_ok
 *   /version              -> (any version string)
 *   /xsk_map_fd,<iface>   -> /fd_ack, with the map fd as SCM_RIGHTS
 *   /fin                  -> /fin_ack
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_string_fns.h>

#include "af_xdp_cni.h"

#define CNI_MSG_MAX 128

static int
cni_connect(const struct af_xdp_port *port)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(port->args.dp_path) >= sizeof(sun.sun_path)) {
		AF_XDP_PORT_LOG(ERR, port, "%s=%s is too long for a Unix socket path",
				AF_XDP_ARG_DP_PATH, port->args.dp_path);
		return -ENAMETOOLONG;
	}
	strlcpy(sun.sun_path, port->args.dp_path, sizeof(sun.sun_path));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		int err = errno;

		AF_XDP_PORT_LOG(ERR, port,
				"cannot reach the AF_XDP device plugin at %s=%s: %s (is the plugin running and the path mounted in this pod?)",
				AF_XDP_ARG_DP_PATH, port->args.dp_path, strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

/* Send one request; read one answer and the descriptor it may carry. */
static int
cni_exchange(const struct af_xdp_port *port, int sock, const char *request,
	     char *answer, int *passed_fd)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = answer, .iov_len = CNI_MSG_MAX - 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *cmsg;
	ssize_t n;

	if (write(sock, request, strlen(request)) < 0) {
		AF_XDP_PORT_LOG(ERR, port, "device plugin: cannot send %s: %s", request,
				strerror(errno));
		return -errno;
	}
	n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	if (n <= 0) {
		AF_XDP_PORT_LOG(ERR, port, "device plugin: no answer to %s: %s", request,
				n == 0 ? "connection closed" : strerror(errno));
		return n == 0 ? -ECONNRESET : -errno;
	}
	answer[n] = '\0';
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg != NULL; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (passed_fd != NULL && cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS)
			memcpy(passed_fd, CMSG_DATA(cmsg), sizeof(int));
	return 0;
}

static int
cni_expect(const struct af_xdp_port *port, int sock, const char *request,
	   const char *expected, int *passed_fd)
{
	char answer[CNI_MSG_MAX];
	int ret = cni_exchange(port, sock, request, answer, passed_fd);

	if (ret != 0)
		return ret;
	if (expected != NULL && strncmp(answer, expected, strlen(expected)) != 0) {
		AF_XDP_PORT_LOG(ERR, port, "device plugin answered '%s' to %s, expected %s",
				answer, request, expected);
		return -EPROTO;
	}
	return 0;
}

/* Returns the XSKMAP fd, or a negative errno after logging why. */
int
af_xdp_cni_get_xskmap(const struct af_xdp_port *port)
{
	char request[CNI_MSG_MAX], host[64] = "";
	int sock, map_fd = -1, ret;

	sock = cni_connect(port);
	if (sock < 0)
		return sock;
	(void)gethostname(host, sizeof(host) - 1);

	snprintf(request, sizeof(request), "/connect,%s", host);
	ret = cni_expect(port, sock, request, "/host_ok", NULL);
	if (ret == 0)
		ret = cni_expect(port, sock, "/version", NULL, NULL);
	if (ret == 0) {
		snprintf(request, sizeof(request), "/xsk_map_fd,%s", port->args.iface);
		ret = cni_expect(port, sock, request, "/fd_ack", &map_fd);
	}
	if (ret == 0 && map_fd < 0) {
		AF_XDP_PORT_LOG(ERR, port, "device plugin acknowledged but passed no XSKMAP fd");
		ret = -EPROTO;
	}
	if (ret == 0)
		ret = cni_expect(port, sock, "/fin", "/fin_ack", NULL);
	close(sock);
	if (ret != 0) {
		if (map_fd >= 0)
			close(map_fd);
		return ret;
	}
	return map_fd;
}
