#include "runtime/cuda/device.h"

#include <cuda_runtime_api.h>

namespace hetplan::runtime::cuda {

DeviceCount deviceCount()
{
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
        return {0, std::string(cudaGetErrorString(status)) + " (cudaGetDeviceCount)"};
    if (count == 0)
        return {0, "the CUDA driver reports no device"};
    return {count, {}};
}

} // namespace hetplan::runtime::cuda
