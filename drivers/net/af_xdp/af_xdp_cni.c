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
 *
 * An answer is accepted when it starts with the expected word, as the stock
 * driver accepts it (plugins may send the terminating NUL or not).
 *
 * The plugin is another process, which may be stuck or not the plugin at
 * all: the connection and every request and its answer have a deadline
 * (AF_XDP_CNI_TIMEOUT_S), and what it answers is only ever printed escaped.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <rte_string_fns.h>

#include "af_xdp_cni.h"

#define CNI_MSG_MAX 128
/* Bytes of an unexpected answer shown in a message (each up to 4 characters). */
#define CNI_SHOW_MAX 64
#define CNI_WHERE_FMT "AF_XDP device plugin at " AF_XDP_ARG_DP_PATH "=%s"

/*
 * The connection and each exchange may take this long: connect() waits for
 * room in the plugin's backlog (SO_SNDTIMEO), send() for room in its queue,
 * recvmsg() for the answer (SO_RCVTIMEO).
 */
static int
set_deadlines(int fd)
{
	const struct timeval tv = { .tv_sec = AF_XDP_CNI_TIMEOUT_S };

	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0)
		return -errno;
	return 0;
}

static int
cni_connect(const struct af_xdp_port *port)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(port->args.dp_path) >= sizeof(sun.sun_path)) {
		AF_XDP_PORT_LOG(ERR, port, "%s=%s is too long for a Unix socket path",
				AF_XDP_ARG_DP_PATH, port->args.dp_path);
		return -ENAMETOOLONG;
	}
	strlcpy(sun.sun_path, port->args.dp_path, sizeof(sun.sun_path));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = -set_deadlines(fd);
	if (err == 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return fd;
	if (err == 0)
		err = errno;
	if (err == EAGAIN)
		AF_XDP_PORT_LOG(ERR, port,
				"the " CNI_WHERE_FMT " accepted no connection within %d s (its backlog is full): check that the plugin is running and not stuck (its log)",
				port->args.dp_path, AF_XDP_CNI_TIMEOUT_S);
	else
		AF_XDP_PORT_LOG(ERR, port,
				"cannot reach the " CNI_WHERE_FMT ": %s (is the plugin running and the path mounted in this pod?)",
				port->args.dp_path, strerror(err));
	close(fd);
	return -err;
}

/*
 * bytes (len of them, total as sent) as a C string literal's contents:
 * printable ASCII as is, everything else as \xNN, the first CNI_SHOW_MAX
 * bytes only, "..." when there was more.
 */
static const char *
escape_answer(const char *bytes, size_t len, size_t total, char *out, size_t out_len)
{
	size_t i, o = 0;

	for (i = 0; i < len && i < CNI_SHOW_MAX && o + 5 < out_len; i++) {
		unsigned char c = (unsigned char)bytes[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, out_len - o, "\\x%02x", c);
	}
	if (i < total && o + 4 <= out_len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

static int
send_request(const struct af_xdp_port *port, int sock, const char *request)
{
	int err;

	/* MSG_NOSIGNAL: a plugin that hung up is an error, not a SIGPIPE. */
	if (send(sock, request, strlen(request), MSG_NOSIGNAL) >= 0)
		return 0;
	err = errno;
	if (err == EAGAIN)
		AF_XDP_PORT_LOG(ERR, port,
				"the " CNI_WHERE_FMT " took no request for %d s (sending %s): check that the plugin is running and not stuck (its log)",
				port->args.dp_path, AF_XDP_CNI_TIMEOUT_S, request);
	else
		AF_XDP_PORT_LOG(ERR, port, "cannot send %s to the " CNI_WHERE_FMT ": %s%s",
				request, port->args.dp_path, strerror(err),
				err == EPIPE ? " (the plugin closed the connection: see its log)" : "");
	return -err;
}

/* A descriptor passed with the answer, if any; closes any beyond the first. */
static int
take_passed_fd(struct msghdr *msg)
{
	struct cmsghdr *cmsg;
	int fd = -1;

	for (cmsg = CMSG_FIRSTHDR(msg); cmsg != NULL; cmsg = CMSG_NXTHDR(msg, cmsg)) {
		const unsigned char *data = CMSG_DATA(cmsg);
		size_t n, i;

		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int passed;

			memcpy(&passed, data + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = passed;
			else
				close(passed);
		}
	}
	return fd;
}

/*
 * Read one answer (NUL-terminated into answer, at most CNI_MSG_MAX - 1
 * bytes kept); *total is its length as sent, *passed_fd the descriptor it
 * carried or -1.
 */
static int
recv_answer(const struct af_xdp_port *port, int sock, const char *request, char *answer,
	    size_t *total, int *passed_fd)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = answer, .iov_len = CNI_MSG_MAX - 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	ssize_t n;
	int err;

	/* MSG_TRUNC: the length as sent, also when longer than the buffer. */
	n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_TRUNC);
	if (n > 0) {
		*passed_fd = take_passed_fd(&msg);
		*total = (size_t)n;
		answer[RTE_MIN((size_t)n, iov.iov_len)] = '\0';
		return 0;
	}
	err = n == 0 ? ECONNRESET : errno;
	if (err == EAGAIN)
		AF_XDP_PORT_LOG(ERR, port,
				"the " CNI_WHERE_FMT " did not answer %s within %d s: check that the plugin is running and serving this pod (its log), and that %s is its socket",
				port->args.dp_path, request, AF_XDP_CNI_TIMEOUT_S, port->args.dp_path);
	else
		AF_XDP_PORT_LOG(ERR, port, "the " CNI_WHERE_FMT " gave no answer to %s: %s",
				port->args.dp_path, request,
				n == 0 ? "it closed the connection (see its log)" : strerror(err));
	return -err;
}

/*
 * Send request and read its answer, which must start with expected (NULL:
 * anything).  *passed_fd (NULL: none is wanted, any passed is closed) gets
 * the descriptor the answer carried, or -1.
 */
static int
cni_expect(const struct af_xdp_port *port, int sock, const char *request,
	   const char *expected, int *passed_fd)
{
	char answer[CNI_MSG_MAX], shown[4 * CNI_SHOW_MAX + 4];
	size_t total = 0;
	int fd = -1, ret;

	ret = send_request(port, sock, request);
	if (ret == 0)
		ret = recv_answer(port, sock, request, answer, &total, &fd);
	if (ret != 0)
		return ret;
	if (passed_fd != NULL)
		*passed_fd = fd;
	else if (fd >= 0)
		close(fd);
	if (expected == NULL || strncmp(answer, expected, strlen(expected)) == 0)
		return 0;
	AF_XDP_PORT_LOG(ERR, port,
			"the " CNI_WHERE_FMT " answered \"%s\" (%zu bytes) to %s, expected %s: is %s the AF_XDP device plugin's socket, and does the plugin serve %s?",
			port->args.dp_path,
			escape_answer(answer, RTE_MIN(total, sizeof(answer) - 1), total,
				      shown, sizeof(shown)),
			total, request, expected, port->args.dp_path, port->args.iface);
	return -EPROTO;
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
		AF_XDP_PORT_LOG(ERR, port,
				"the " CNI_WHERE_FMT " acknowledged %s but passed no XSKMAP fd",
				port->args.dp_path, request);
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
