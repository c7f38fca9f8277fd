/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * bench-pingpong: the placement indicator of the benchmark.  Two threads,
 * pinned to two CPUs (default 0 and 1: the generator's and the DUT's), pass
 * a cache line back and forth; the time of a round trip says how far apart
 * the host has put the two vCPUs at that moment (on the machine the
 * benchmark was written on: ~100 ns near, ~380 ns far).  testpmd's
 * cycles/packet flips between two levels with the same placement, so the
 * benchmark records this before and after every run.
 *
 *   bench-pingpong [--cpus A,B] [--trials N] [--round-trips N] [--json]
 *
 * Prints the median over the trials of the mean round trip of each trial,
 * with the min and max.  A trial in which a thread was kept off its CPU for
 * long (another process) ends at a deadline and counts as such.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TRIALS 101
/* A trial taking longer than this was preempted: it ends, marked slow. */
#define TRIAL_DEADLINE_NS 100000000ull

struct line {
	_Alignas(64) atomic_uint turn;		/* odd: the pong thread's turn */
	atomic_int quit;
	char pad[64 - 2 * sizeof(int)];
};

struct pong_arg {
	struct line *line;
	int cpu;
	int pinned;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *
pong(void *p)
{
	struct pong_arg *a = p;
	unsigned int t;

	a->pinned = pin(a->cpu) == 0;
	for (;;) {
		t = atomic_load_explicit(&a->line->turn, memory_order_acquire);
		if (t & 1u)
			atomic_store_explicit(&a->line->turn, t + 1, memory_order_release);
		else if (atomic_load_explicit(&a->line->quit, memory_order_relaxed))
			break;
	}
	return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "trials", required_argument, NULL, 't' },
		{ "round-trips", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct line line;
	int cpu_a = 0, cpu_b = 1, trials = 9, json = 0, slow = 0, c, i;
	long round_trips = 2000;
	double ns[MAX_TRIALS];
	struct pong_arg arg;
	pthread_t th;

	while ((c = getopt_long(argc, argv, "c:t:r:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (sscanf(optarg, "%d,%d", &cpu_a, &cpu_b) != 2 || cpu_a < 0 || cpu_b < 0 ||
			    cpu_a == cpu_b) {
				fprintf(stderr, "bench-pingpong: --cpus %s: expected two different CPUs, A,B\n",
					optarg);
				return 2;
			}
			break;
		case 't':
			trials = atoi(optarg);
			if (trials < 1 || trials > MAX_TRIALS) {
				fprintf(stderr, "bench-pingpong: --trials %s: 1..%d\n", optarg, MAX_TRIALS);
				return 2;
			}
			break;
		case 'r':
			round_trips = atol(optarg);
			if (round_trips < 1) {
				fprintf(stderr, "bench-pingpong: --round-trips %s: at least 1\n", optarg);
				return 2;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			printf("usage: bench-pingpong [--cpus A,B] [--trials N] [--round-trips N] [--json]\n");
			return 0;
		default:
			return 2;
		}
	}

	if (pin(cpu_a) != 0) {
		fprintf(stderr, "bench-pingpong: cannot run on CPU %d\n", cpu_a);
		return 1;
	}
	arg = (struct pong_arg){ .line = &line, .cpu = cpu_b };
	if (pthread_create(&th, NULL, pong, &arg) != 0) {
		fprintf(stderr, "bench-pingpong: cannot start a thread: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < trials; i++) {
		uint64_t t0 = now_ns(), deadline = t0 + TRIAL_DEADLINE_NS, t1;
		long n;

		for (n = 0; n < round_trips; n++) {
			unsigned int t = atomic_load_explicit(&line.turn, memory_order_relaxed);

			atomic_store_explicit(&line.turn, t + 1, memory_order_release);
			while (atomic_load_explicit(&line.turn, memory_order_acquire) == t + 1)
				;
			if ((n & 63) == 63 && now_ns() > deadline) {
				slow++;
				n++;
				break;
			}
		}
		t1 = now_ns();
		ns[i] = (double)(t1 - t0) / (double)n;
	}
	atomic_store_explicit(&line.quit, 1, memory_order_relaxed);
	pthread_join(th, NULL);
	if (!arg.pinned) {
		fprintf(stderr, "bench-pingpong: cannot run on CPU %d\n", cpu_b);
		return 1;
	}

	qsort(ns, (size_t)trials, sizeof(ns[0]), cmp_double);
	if (json)
		printf("{\"cpus\":[%d,%d],\"median_ns\":%.1f,\"min_ns\":%.1f,\"max_ns\":%.1f,"
		       "\"trials\":%d,\"round_trips\":%ld,\"slow_trials\":%d}\n",
		       cpu_a, cpu_b, ns[trials / 2], ns[0], ns[trials - 1], trials, round_trips, slow);
	else
		printf("cache-line round trip CPU %d <-> CPU %d: median %.1f ns (min %.1f, max %.1f) over %d trials of %ld%s\n",
		       cpu_a, cpu_b, ns[trials / 2], ns[0], ns[trials - 1], trials, round_trips,
		       slow ? " (some trials cut short: a thread was kept off its CPU)" : "");
	return 0;
}
