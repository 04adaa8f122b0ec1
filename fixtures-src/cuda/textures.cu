// fixture: min_sm=70
// Texture and surface objects: tex1Dfetch, tex2D<float> and tex2D<float4> (filtering and
// address modes are properties of the object: the launch cases create them with
// `ptxvm run --arg tex:...`), tex3D<float>, and surf2Dread/surf2Dwrite with the trap and clamp
// boundary modes.

extern "C" __global__ void fetch1d(cudaTextureObject_t t, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, (3 * i) % n) + 0.5f * tex1Dfetch<float>(t, i - 2);
}

// One sample per thread at ((x + 0.25) * sx, (y + 0.75) * sy): with linear filtering these
// fall between texels (and, near the edges, outside the texture).
extern "C" __global__ void sample2d(cudaTextureObject_t t, float* out, int w, int h, float sx, float sy) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(t, (x + 0.25f) * sx - 0.5f, (y + 0.75f) * sy - 0.5f);
}

extern "C" __global__ void sample2d_rgba(cudaTextureObject_t t, float4* out, int w, int h, float sx, float sy) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float4>(t, (x + 0.5f) * sx, (y + 0.5f) * sy);
}

extern "C" __global__ void sample3d(cudaTextureObject_t t, float* out, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, (i % 5) * s + 0.1f, (i / 5 % 4) * s + 0.3f, (i / 20) * s - 0.2f);
}

// out(x, y) = 2 * in(x, y) + in(x - 1, y) (the left neighbour clamped at the edge).
extern "C" __global__ void surf_blur(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float v, l;
        surf2Dread(&v, in, x * 4, y);
        surf2Dread(&l, in, (x - 1) * 4, y, cudaBoundaryModeClamp);
        surf2Dwrite(2.0f * v + l, out, x * 4, y);
    }
}
