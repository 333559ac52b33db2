/* A library built like libddb (hidden by default, the header exports) with
 * one leak: check_exports must report leaky_leak and leaky_declared_only,
 * and nothing else. */
#include "leaky.h"

int leaky_variable = 1;

/* Internal, not static: hidden by the preset, so not a difference. */
int leaky_hidden(int x);
int leaky_hidden(int x) { return x + leaky_inline(); }

int leaky_multi_line(int a, int b) { return leaky_hidden(a + b); }
static int twice(int x) { return 2 * x; }
int (*leaky_returns_fnptr(void))(int) { return twice; }
LEAKY_DECLARE(from_macro) { return 0; }

/* The leak: exported, declared in no public header. */
__attribute__((visibility("default"))) int leaky_leak(void);
int leaky_leak(void) { return 3; }
