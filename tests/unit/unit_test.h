/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef UNIT_TEST_H
#define UNIT_TEST_H

/* A minimal test harness: CHECK records a failure and goes on, RUN runs a test. */

#include <stdio.h>
#include <stdlib.h>

/* What meson takes for a skipped test. */
#define UNIT_SKIP 77

static int unit_failures;
static int unit_checks;

#define CHECK(cond, ...) do { \
	unit_checks++; \
	if (!(cond)) { \
		unit_failures++; \
		fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
	CHECK(_a == _b, "%s = %llu, expected %s = %llu", #a, _a, #b, _b); \
} while (0)

#define RUN(test) do { \
	int _before = unit_failures; \
	test(); \
	printf("%s %s\n", unit_failures == _before ? "ok  " : "FAIL", #test); \
} while (0)

static inline int
unit_summary(void)
{
	printf("%d checks, %d failures\n", unit_checks, unit_failures);
	return unit_failures == 0 ? 0 : 1;
}

#endif /* UNIT_TEST_H */
