/* runtime_test.h — the few checks the C unit tests share: CHECK(cond) and CHECK_CONTAINS(text, part)
 * count failures and print where; main returns test_result(). */
#ifndef KF_TEST_RUNTIME_TEST_H
#define KF_TEST_RUNTIME_TEST_H

#include <stdio.h>
#include <string.h>

static int test_failures;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
      test_failures++;                                                           \
    }                                                                            \
  } while (0)

/* CHECK with a printf-style explanation of the failure */
#define CHECK_MSG(cond, ...)                                                     \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);   \
      fprintf(stderr, __VA_ARGS__);                                              \
      fprintf(stderr, "\n");                                                     \
      test_failures++;                                                           \
    }                                                                            \
  } while (0)

#define CHECK_CONTAINS(text, part)                                                               \
  do {                                                                                           \
    const char *t_ = (text);                                                                     \
    if (!t_ || !strstr(t_, (part))) {                                                            \
      fprintf(stderr, "%s:%d: expected \"%s\" in:\n%s\n", __FILE__, __LINE__, (part), t_ ? t_ : "(null)"); \
      test_failures++;                                                                           \
    }                                                                                            \
  } while (0)

static inline int test_result(const char *name) {
  if (test_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
  else printf("%s: ok\n", name);
  return test_failures ? 1 : 0;
}

#endif
