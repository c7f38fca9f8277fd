// SPDX-License-Identifier: BSD-3-Clause
/*
 * pkt_inject --ifname IF --count N --run-id ID [--via packet|xdp|burst]
 *            [--first SEQ]
 *
 * Send test frames 0 .. N-1 of run ID out of IF, each exactly once (SEQ ..
 * SEQ + N - 1 with --first, for packet and xdp):
 *
 *   packet  (default) through an AF_PACKET raw socket: the peer veth gets
 *           skbs (ndo_start_xmit). A full veth ring refuses the frame with
 *           ENOBUFS: wait a little and send it again.
 *   xdp     one BPF_PROG_RUN in live-frames mode per frame, with a program
 *           redirecting it to IF: the peer veth gets xdp_frames
 *           (ndo_xdp_xmit). Frame by frame, so that the peer's 256-entry
 *           ring cannot overflow.
 *   burst   the same, BURST frames per BPF_PROG_RUN, numbered by the
 *           program: the peer's NAPI poll, which runs when each run ends,
 *           takes BURST frames at once (its batches).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <bpf/bpf.h>

#include "xsk_test.h"

/* Give up on a frame the device keeps refusing after this long */
#define RETRY_LIMIT_NS	10000000000ull
/* Frames per live-frames run in burst mode: a NAPI poll's worth */
#define BURST		64

static int send_packet(int ifindex, unsigned long first, unsigned long count,
		       uint32_t run_id)
{
	struct sockaddr_ll to = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
		.sll_halen = 6,
		.sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	const struct timespec pause = { .tv_nsec = 50000 };
	uint8_t frame[XDT_FRAME_LEN];
	unsigned long seq, retries = 0;
	int fd;

	/* Protocol 0: this socket sends only, it receives nothing. */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		MSG("AF_PACKET socket: %s\n", strerror(errno));
		return -1;
	}
	for (seq = first; seq < first + count; seq++) {
		uint64_t since = xdt_now_ns();

		xdt_frame_build(frame, run_id, seq);
		while (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&to,
			      sizeof(to)) != sizeof(frame)) {
			if ((errno != ENOBUFS && errno != EAGAIN && errno != EINTR) ||
			    xdt_now_ns() - since > RETRY_LIMIT_NS) {
				MSG("sending frame %lu: %s\n", seq, strerror(errno));
				close(fd);
				return -1;
			}
			retries++;
			nanosleep(&pause, NULL);
		}
	}
	close(fd);
	printf("# sent %lu frames (AF_PACKET), %lu retries after ENOBUFS\n", count, retries);
	return 0;
}

static int send_xdp(int ifindex, unsigned long first, unsigned long count,
		    uint32_t run_id)
{
	uint8_t frame[XDT_FRAME_LEN];
	unsigned long seq;
	int prog;

	prog = xdt_prog_redirect_ifindex(ifindex);
	if (prog < 0)
		return -1;
	for (seq = first; seq < first + count; seq++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts,
			.data_in = frame,
			.data_size_in = sizeof(frame),
			.repeat = 1,
			.flags = BPF_F_TEST_XDP_LIVE_FRAMES);
		int err;

		xdt_frame_build(frame, run_id, seq);
		err = bpf_prog_test_run_opts(prog, &opts);
		if (err) {
			MSG("live-frames run for frame %lu: %s\n", seq, strerror(-err));
			close(prog);
			return -1;
		}
	}
	close(prog);
	printf("# sent %lu frames (BPF_PROG_RUN live frames, redirected)\n", count);
	return 0;
}

static int send_burst(int ifindex, unsigned long count, uint32_t run_id)
{
	uint8_t frame[XDT_FRAME_LEN];
	unsigned long sent = 0;
	uint64_t numbered = 0;
	int counter, prog, err = 0;
	uint32_t zero = 0;

	counter = xdt_counter_create();
	prog = counter < 0 ? -1 : xdt_prog_numbering_gen(ifindex, counter);
	if (prog < 0) {
		MSG("burst generator: %s\n", strerror(errno));
		goto out;
	}
	xdt_frame_build(frame, run_id, 0);
	while (sent < count) {
		LIBBPF_OPTS(bpf_test_run_opts, opts,
			.data_in = frame,
			.data_size_in = sizeof(frame),
			.repeat = count - sent < BURST ? count - sent : BURST,
			.batch_size = BURST,
			.flags = BPF_F_TEST_XDP_LIVE_FRAMES);

		err = bpf_prog_test_run_opts(prog, &opts);
		if (err) {
			MSG("live-frames run from frame %lu: %s\n", sent, strerror(-err));
			goto out;
		}
		sent += opts.repeat;
	}
	if (bpf_map_lookup_elem(counter, &zero, &numbered) || numbered != count) {
		MSG("the generator numbered %llu frames, not %lu\n",
		    (unsigned long long)numbered, count);
		err = -1;
		goto out;
	}
	printf("# sent %lu frames (BPF_PROG_RUN live frames, %d per run, numbered)\n",
	       count, BURST);
out:
	if (prog >= 0)
		close(prog);
	if (counter >= 0)
		close(counter);
	return prog < 0 ? -1 : err;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "via", required_argument, NULL, 'v' },
		{ "first", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifname = NULL, *via = "packet";
	unsigned long count = 0, run_id = 0, first = 0;
	int opt, ifindex, err;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'r': run_id = strtoul(optarg, NULL, 0); break;
		case 'v': via = optarg; break;
		case 'f': first = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (!ifname || !count || !run_id)
		goto usage;
	ifindex = xdt_ifindex(ifname);
	if (ifindex < 0) {
		MSG("%s: %s\n", ifname, strerror(-ifindex));
		return EXIT_FAILURE;
	}
	if (!strcmp(via, "packet"))
		err = send_packet(ifindex, first, count, run_id);
	else if (!strcmp(via, "xdp"))
		err = send_xdp(ifindex, first, count, run_id);
	else if (!strcmp(via, "burst") && !first)
		err = send_burst(ifindex, count, run_id);
	else
		goto usage;
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
usage:
	MSG("usage: %s --ifname IF --count N --run-id ID [--via packet|xdp|burst]"
	    " [--first SEQ]\n", argv[0]);
	return 2;
}
