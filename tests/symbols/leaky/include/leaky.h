/* The public header of tests/symbols' leaky library: the declaration forms
 * check_exports must read (multi-line, a function returning a function
 * pointer, a variable, a macro-made prototype, a static inline helper that
 * is not a symbol) and one function the library does not define. */
#ifndef LEAKY_H
#define LEAKY_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

int leaky_multi_line(int a,
                     int b);
int (*leaky_returns_fnptr(void))(int);
extern int leaky_variable;
#define LEAKY_DECLARE(name) int leaky_##name(void)
LEAKY_DECLARE(from_macro);
static inline int leaky_inline(void) { return 1; }
/* Declared, never defined: "declared but not exported". */
int leaky_declared_only(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
