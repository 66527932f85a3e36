#include <pthread.h>
#include <sched.h>

#include <cctype>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "cpu_affinity.cuh"
#include "runtime.cuh"

namespace va {
namespace {

struct LocalCpus {
    bool known = false;  // read (whatever came of it)
    bool usable = false;
    cpu_set_t set;
};

std::mutex g_mutex;
LocalCpus g_local[kMaxDevices];

// "0-15,32-47" into `set`; false on anything else.
bool parse_cpulist(const char *text, cpu_set_t *set) {
    CPU_ZERO(set);
    const char *p = text;
    bool any = false;
    while (*p != '\0' && *p != '\n') {
        char *end = nullptr;
        const long first = std::strtol(p, &end, 10);
        if (end == p || first < 0) return false;
        long last = first;
        p = end;
        if (*p == '-') {
            last = std::strtol(p + 1, &end, 10);
            if (end == p + 1 || last < first) return false;
            p = end;
        }
        for (long c = first; c <= last && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), set);
        any = true;
        if (*p == ',') ++p;
    }
    return any;
}

void read_local_cpus(int device, LocalCpus *local) {
    local->known = true;
    char bus[32] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), device) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    for (char *c = bus; *c != '\0'; ++c) *c = static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
    char path[96];
    std::snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/local_cpulist", bus);
    std::FILE *f = std::fopen(path, "r");
    if (f == nullptr) return;
    char text[1024] = {0};
    const bool read = std::fgets(text, sizeof(text), f) != nullptr;
    std::fclose(f);
    if (!read || !parse_cpulist(text, &local->set)) return;
    // Only CPUs this process may run on: a container's cpuset may exclude some.
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
    CPU_AND(&local->set, &local->set, &allowed);
    local->usable = CPU_COUNT(&local->set) > 0;
}

// `value` << shift, or 0 where that does not fit a size_t.
size_t shifted_size(unsigned long long value, int shift) {
    if (value > (static_cast<unsigned long long>(SIZE_MAX) >> shift)) return 0;
    return static_cast<size_t>(value) << shift;
}

// "32768K", "300M" or "1G" as bytes; 0 on anything else (or too large to be a size).
size_t parse_cache_size(const char *text) {
    char *end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (end == text) return 0;
    switch (std::toupper(static_cast<unsigned char>(*end))) {
        case 'K': return shifted_size(value, 10);
        case 'M': return shifted_size(value, 20);
        case 'G': return shifted_size(value, 30);
        case '\n':
        case '\0': return shifted_size(value, 0);
    }
    return 0;
}

size_t read_last_level_cache() {
    size_t bytes = 0;
    int best_level = 0;
    for (int index = 0; index < 8; ++index) {
        char path[96], text[32];
        std::snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        FILE *f = std::fopen(path, "r");
        if (f == nullptr) break;
        const bool read = std::fgets(text, sizeof(text), f) != nullptr;
        std::fclose(f);
        const int level = read ? std::atoi(text) : 0;
        if (level <= best_level) continue;
        std::snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        f = std::fopen(path, "r");
        if (f == nullptr) continue;
        if (std::fgets(text, sizeof(text), f) != nullptr) {
            best_level = level;
            bytes = parse_cache_size(text);
        }
        std::fclose(f);
    }
    return bytes;
}

}  // namespace

size_t last_level_cache_bytes() {
    static const size_t bytes = read_last_level_cache();
    return bytes;
}

bool bind_workers() {
    static const bool on = env_flag("MYMODULE_BIND_WORKERS");
    return on;
}

void bind_to_device_cpus(int device) {
    if (device < 0 || device >= kMaxDevices) return;
    cpu_set_t set;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        LocalCpus &local = g_local[device];
        if (!local.known) read_local_cpus(device, &local);
        if (!local.usable) return;
        set = local.set;
    }
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

}  // namespace va
