/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The descriptors a started port lends to secondaries (af_xdp_lend.h):
 * what a borrower gets while the port lends, and a clean refusal before
 * and after; then a borrower hammering the table while the "port" lends,
 * withdraws, closes its descriptors and has their numbers taken by other
 * files at once, as a stop and the next start do: every copy a borrower
 * gets must be one of the lent files, never another file that took a
 * closed one's number.  eventfds stand for the sockets, pipes for the
 * files that reuse their numbers.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/stat.h>

#include "af_xdp_lend.h"
#include "unit_test.h"

#define PORT "net_af_xdp_lend0"
#define NB 5			/* queue indexes, one without a socket */
#define HOLE 2
#define ROUNDS 20000

static bool
same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static bool
is_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, link, sizeof(link) - 1);
	if (len < 0)
		return false;
	link[len] = '\0';
	return strcmp(link, "anon_inode:[eventfd]") == 0;
}

static void
open_fds(int *fds)
{
	int i;

	for (i = 0; i < NB; i++)
		fds[i] = i == HOLE ? -1 : eventfd(0, EFD_CLOEXEC);
}

static void
close_fds(const int *fds)
{
	int i;

	for (i = 0; i < NB; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void
test_lend_and_refuse(void)
{
	int lent[NB], fallbacks = eventfd(0, EFD_CLOEXEC), got[8], fd, i, n;

	open_fds(lent);
	CHECK_EQ(af_xdp_lend_fds(PORT, 0, 8, got), -ENOENT);
	CHECK_EQ(af_xdp_lend_fallbacks_fd(PORT, &fd), -ENOENT);
	CHECK_EQ(fd, -1);
	CHECK_EQ(af_xdp_lend_publish(PORT, lent, NB, fallbacks), 0);
	CHECK_EQ(af_xdp_lend_fds("net_af_xdp_other", 0, 8, got), -ENOENT);

	/* In two messages of 3: slots 0-2, then 3-4, then none. */
	n = af_xdp_lend_fds(PORT, 0, 3, got);
	CHECK_EQ(n, 3);
	for (i = 0; i < n; i++) {
		if (i == HOLE) {
			CHECK_EQ(got[i], -1);
			continue;
		}
		CHECK(got[i] >= 0 && got[i] != lent[i] && same_file(got[i], lent[i]),
		      "slot %d: a copy of the lent descriptor", i);
		close(got[i]);
	}
	n = af_xdp_lend_fds(PORT, 3, 3, got);
	CHECK_EQ(n, 2);
	for (i = 0; i < n; i++) {
		CHECK(got[i] >= 0 && same_file(got[i], lent[3 + i]), "slot %d", 3 + i);
		close(got[i]);
	}
	CHECK_EQ(af_xdp_lend_fds(PORT, NB, 3, got), 0);
	CHECK_EQ(af_xdp_lend_fallbacks_fd(PORT, &fd), 0);
	CHECK(fd >= 0 && same_file(fd, fallbacks), "a copy of the fallbacks map");
	close(fd);

	/* A restart publishes again: the new descriptors replace the old. */
	af_xdp_lend_withdraw(PORT);
	CHECK_EQ(af_xdp_lend_fds(PORT, 0, 8, got), -ENOENT);
	CHECK_EQ(af_xdp_lend_publish(PORT, lent, NB, -1), 0);
	CHECK_EQ(af_xdp_lend_publish(PORT, lent, 1, -1), 0);
	CHECK_EQ(af_xdp_lend_fds(PORT, 0, 8, got), 1);
	close(got[0]);
	CHECK_EQ(af_xdp_lend_fallbacks_fd(PORT, &fd), 0);
	CHECK_EQ(fd, -1);
	af_xdp_lend_withdraw(PORT);
	af_xdp_lend_withdraw(PORT);	/* twice: nothing to do */
	CHECK_EQ(af_xdp_lend_fds(PORT, 0, 8, got), -ENOENT);
	close_fds(lent);
	close(fallbacks);
}

struct hammer {
	volatile bool done;
	unsigned int lent, refused, wrong, failed;
};

static void *
borrower(void *arg)
{
	struct hammer *h = arg;
	int got[NB], i, n;

	while (!h->done) {
		n = af_xdp_lend_fds(PORT, 0, NB, got);
		if (n == -ENOENT) {
			h->refused++;
			continue;
		}
		if (n != NB) {
			h->failed++;
			continue;
		}
		h->lent++;
		for (i = 0; i < n; i++) {
			if (i == HOLE ? got[i] != -1 : !is_eventfd(got[i]))
				h->wrong++;
			if (got[i] >= 0)
				close(got[i]);
		}
	}
	return NULL;
}

/* The port's side: start (lend), stop (withdraw, close), the numbers reused at once. */
static void
test_stop_start_under_requests(void)
{
	struct hammer h = { 0 };
	pthread_t thread;
	int fds[NB], pipes[NB][2], round, i;

	CHECK_EQ(pthread_create(&thread, NULL, borrower, &h), 0);
	for (round = 0; round < ROUNDS; round++) {
		open_fds(fds);
		af_xdp_lend_publish(PORT, fds, NB, -1);
		sched_yield();
		af_xdp_lend_withdraw(PORT);
		close_fds(fds);
		for (i = 0; i < NB; i++)
			if (pipe(pipes[i]) != 0)
				pipes[i][0] = pipes[i][1] = -1;
		sched_yield();
		for (i = 0; i < NB; i++) {
			if (pipes[i][0] >= 0)
				close(pipes[i][0]);
			if (pipes[i][1] >= 0)
				close(pipes[i][1]);
		}
	}
	h.done = true;
	pthread_join(thread, NULL);
	printf("    %u rounds: %u requests lent, %u refused, %u wrong files, %u failed\n",
	       ROUNDS, h.lent, h.refused, h.wrong, h.failed);
	CHECK_EQ(h.wrong, 0);
	CHECK_EQ(h.failed, 0);
	CHECK(h.lent > 0 && h.refused > 0, "both a started and a stopped port were asked (%u, %u)",
	      h.lent, h.refused);
}

int
main(void)
{
	RUN(test_lend_and_refuse);
	RUN(test_stop_start_under_requests);
	return unit_summary();
}
