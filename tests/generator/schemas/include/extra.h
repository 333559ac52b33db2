/* extra.h — found only through -I schemas/include (test_cli). */
#ifndef EXTRA_H
#define EXTRA_H

#include <stdint.h>

struct extra {
    int32_t level;
};

#endif
