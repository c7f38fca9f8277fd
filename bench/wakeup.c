/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * bench-wakeup: the two ends of the wake-up latency benchmark
 * (bench/wakeup.py) that are not the application under test.
 *
 *   bench-wakeup send IFACE DSTMAC COUNT GAP_US [PATH]
 *   bench-wakeup recv IFACE COUNT PATH
 *
 * send: COUNT frames of ethertype 0x88b6 out of IFACE (a packet socket),
 * one every GAP_US microseconds on an absolute schedule; each carries its
 * sequence number and CLOCK_MONOTONIC just before its sendto(), which the
 * receiver in the other network namespace shares (namespaces do not have
 * clocks of their own).  With PATH, a line per frame there: <seq> <ns
 * from the timestamp to send()'s return>; veth runs the receiving side's
 * NAPI in the sender's softirq, so that is the frame's way into the
 * receiver's ring (or socket) too, unless the softirq was left to
 * ksoftirqd.  Prints: sent=<frames> late=<sent over a gap behind its
 * schedule>.
 *
 * recv: the kernel's own sleeping receiver, the reference: a packet socket
 * on IFACE taking those frames in a blocking recv(); per frame, a line in
 * PATH as afxdp_intr_test's latency command writes them (<seq> <ns from the
 * timestamp to the frame in hand> -1).  Prints READY once bound; ends at
 * COUNT frames or at SIGUSR1 (the sender is done; sent until it ends, as
 * one may come just before a recv() begins): n=<frames> drops=<the
 * socket's, for a full receive buffer (PACKET_STATISTICS)> cpu_us=<user
 * and system time from READY on, as afxdp_intr_test's>.  Not at a quiet
 * spell, which a machine that stops for a while makes by itself.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/ether.h>
#include <linux/if_packet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ETH_P_LATENCY	0x88B6
#define FRAME_LEN	60
#define HDR_LEN		14

/* After the Ethernet header; afxdp_intr_test reads the same. */
struct latency_frame {
	uint32_t seq;
	uint64_t sent_ns;
} __attribute__((packed));

static volatile sig_atomic_t stop;

static void
on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t
cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
die(const char *what)
{
	fprintf(stderr, "bench-wakeup: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A packet socket for ethertype 0x88b6 bound to iface. */
static int
packet_socket(const char *iface, struct sockaddr_ll *sll)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_LATENCY));

	if (fd < 0)
		die("socket(AF_PACKET)");
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(ETH_P_LATENCY);
	sll->sll_ifindex = (int)if_nametoindex(iface);
	if (sll->sll_ifindex == 0)
		die(iface);
	if (bind(fd, (struct sockaddr *)sll, sizeof(*sll)) != 0)
		die("bind");
	return fd;
}

static int
send_frames(const char *iface, const char *dst, unsigned long count, unsigned long gap_us,
	    const char *path)
{
	FILE *out = path != NULL ? fopen(path, "w") : NULL;
	unsigned char frame[FRAME_LEN] = { 0 };
	struct ether_addr *mac = ether_aton(dst);
	struct latency_frame f;
	struct sockaddr_ll sll;
	struct timespec next;
	struct ifreq ifr;
	unsigned long i, late = 0;
	uint16_t type = htons(ETH_P_LATENCY);
	int fd;

	if (path != NULL && out == NULL)
		die(path);
	if (mac == NULL) {
		errno = EINVAL;
		die(dst);
	}
	fd = packet_socket(iface, &sll);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) != 0)
		die("SIOCGIFHWADDR");
	memcpy(frame, mac, 6);
	memcpy(frame + 6, ifr.ifr_hwaddr.sa_data, 6);
	memcpy(frame + 12, &type, 2);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < count; i++) {
		uint64_t due;

		next.tv_nsec += (long)(gap_us * 1000);
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		due = (uint64_t)next.tv_sec * 1000000000ull + (uint64_t)next.tv_nsec;
		f.seq = (uint32_t)i;
		f.sent_ns = mono_ns();
		late += f.sent_ns - due > gap_us * 1000;
		memcpy(frame + HDR_LEN, &f, sizeof(f));
		if (send(fd, frame, sizeof(frame), 0) != (ssize_t)sizeof(frame))
			die("send");
		if (out != NULL)
			fprintf(out, "%lu %" PRIu64 "\n", i, mono_ns() - f.sent_ns);
	}
	if (out != NULL)
		fclose(out);
	close(fd);
	printf("sent=%lu late=%lu\n", count, late);
	return 0;
}

static int
recv_frames(const char *iface, unsigned long count, const char *path)
{
	struct sigaction sa = { .sa_handler = on_stop };	/* no SA_RESTART: recv() ends */
	struct tpacket_stats st = { 0 };
	uint64_t cpu0;
	socklen_t st_len = sizeof(st);
	unsigned char frame[2048];
	struct latency_frame f;
	struct sockaddr_ll sll;
	unsigned long n = 0;
	FILE *out = fopen(path, "w");
	int fd;

	if (out == NULL)
		die(path);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		die("sigaction");
	fd = packet_socket(iface, &sll);
	cpu0 = cpu_us();
	printf("READY\n");
	fflush(stdout);
	while (n < count && !stop) {
		ssize_t len = recv(fd, frame, sizeof(frame), 0);
		uint64_t now = mono_ns();

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			die("recv");
		if ((size_t)len < HDR_LEN + sizeof(f))
			continue;
		memcpy(&f, frame + HDR_LEN, sizeof(f));
		fprintf(out, "%" PRIu32 " %" PRId64 " -1\n", f.seq, (int64_t)(now - f.sent_ns));
		n++;
	}
	fclose(out);
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &st_len) != 0)
		die("PACKET_STATISTICS");
	close(fd);
	printf("n=%lu drops=%u cpu_us=%" PRIu64 "\n", n, st.tp_drops, cpu_us() - cpu0);
	return 0;
}

int
main(int argc, char **argv)
{
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "send") == 0)
		return send_frames(argv[2], argv[3], strtoul(argv[4], NULL, 0),
				   strtoul(argv[5], NULL, 0), argc == 7 ? argv[6] : NULL);
	if (argc == 5 && strcmp(argv[1], "recv") == 0)
		return recv_frames(argv[2], strtoul(argv[3], NULL, 0), argv[4]);
	fprintf(stderr, "usage: bench-wakeup send IFACE DSTMAC COUNT GAP_US [PATH]\n"
			"       bench-wakeup recv IFACE COUNT PATH\n");
	return 2;
}
