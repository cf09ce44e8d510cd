#define _GNU_SOURCE
#include "device.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>

#include "loaded.h"

/* CUDA driver API: cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr); a
 * pointer CUDA does not know fails (an ordinary host allocation) or says host. */
typedef int (*cuda_attribute_fn)(void *data, int attribute, uintptr_t pointer);
enum { CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, CU_MEMORYTYPE_HOST = 1 };

/* HIP: hipPointerGetAttributes(&attributes, ptr); the memory type is the first field in every
 * ROCm release, but its values changed in ROCm 6 (hipRuntimeGetVersion tells which). Before
 * 6, an unknown (host) pointer fails and host is 0; from 6 on, unregistered is 0, host 1. */
typedef int (*hip_attributes_fn)(void *attributes, const void *pointer);
typedef int (*hip_version_fn)(int *version);

static _Atomic(cuda_attribute_fn) cuda;
static _Atomic(hip_attributes_fn) hip;
static _Atomic int hip_major = -1;
static _Atomic unsigned long long objects_seen = ~0ull;

static void look_up_runtimes(void)
{
    const unsigned long long loaded = loaded_objects();
    if (atomic_exchange_explicit(&objects_seen, loaded, memory_order_relaxed) == loaded)
        return;
    if (!atomic_load_explicit(&cuda, memory_order_relaxed))
        atomic_store(&cuda, (cuda_attribute_fn)dlsym(RTLD_DEFAULT, "cuPointerGetAttribute"));
    if (!atomic_load_explicit(&hip, memory_order_relaxed)) {
        hip_version_fn version = (hip_version_fn)dlsym(RTLD_DEFAULT, "hipRuntimeGetVersion");
        int v = 0;
        if (version && version(&v) == 0) {
            atomic_store(&hip_major, v / 10000000);
            atomic_store(&hip, (hip_attributes_fn)dlsym(RTLD_DEFAULT, "hipPointerGetAttributes"));
        }
    }
}

bool device_runtime_loaded(void)
{
    look_up_runtimes();
    return atomic_load_explicit(&cuda, memory_order_relaxed) ||
           atomic_load_explicit(&hip, memory_order_relaxed);
}

bool device_memory(const void *p)
{
    look_up_runtimes();
    cuda_attribute_fn cu = atomic_load_explicit(&cuda, memory_order_relaxed);
    unsigned int cuda_type = 0;
    if (cu && cu(&cuda_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)p) == 0 &&
        cuda_type != CU_MEMORYTYPE_HOST)
        return true;
    hip_attributes_fn hp = atomic_load_explicit(&hip, memory_order_relaxed);
    int attributes[32] = {0}; /* larger than hipPointerAttribute_t in any release */
    if (hp && hp(attributes, p) == 0) {
        int type = attributes[0];
        return atomic_load(&hip_major) >= 6 ? type > 1 : type != 0;
    }
    return false;
}
