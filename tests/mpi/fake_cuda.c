/* A stand-in for the CUDA driver's pointer query: memory registered here is "device memory"
 * (it is host memory, so the MPI can still move it when memcomm hands it over). */
#include <stddef.h>
#include <stdint.h>

static uintptr_t lo, hi;

__attribute__((visibility("default"))) void fake_cuda_register(const void *p, size_t bytes)
{
    lo = (uintptr_t)p;
    hi = lo + bytes;
}

__attribute__((visibility("default"))) int cuPointerGetAttribute(void *data, int attribute,
                                                            uintptr_t pointer)
{
    if (attribute != 2 /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */ || pointer < lo || pointer >= hi)
        return 1; /* CUDA_ERROR_INVALID_VALUE: not CUDA's */
    *(unsigned int *)data = 2; /* CU_MEMORYTYPE_DEVICE */
    return 0;
}
