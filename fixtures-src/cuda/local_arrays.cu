// fixture: min_sm=70 variants=lineinfo,debug
// Per-thread arrays dynamically indexed -> .local memory (ld.local/st.local), plus register-promoted ones.
extern "C" __global__ void local_bubble_sort(const float* in, float* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a[16];
    for (int k = 0; k < 16; ++k) a[k] = in[(t * 16 + k) % n];
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j + 1 < 16 - i; ++j)
            if (a[j] > a[j + 1]) { float x = a[j]; a[j] = a[j + 1]; a[j + 1] = x; }
    for (int k = 0; k < 16; ++k) out[t * 16 + k] = a[k];
}

extern "C" __global__ void local_dynamic_index(const int* idx, const double* vals, double* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    double table[24];
    int counts[24];
    for (int k = 0; k < 24; ++k) { table[k] = 0.0; counts[k] = 0; }
    for (int k = 0; k < n; ++k) {
        int j = idx[(t + k) % n] % 24;
        if (j < 0) j += 24;
        table[j] += vals[k];
        counts[j] += 1;
    }
    double s = 0.0;
    for (int k = 0; k < 24; ++k) s += counts[k] ? table[k] / counts[k] : 0.0;
    out[t] = s;
}

struct Particle { float pos[3]; float vel[3]; int id; };
extern "C" __global__ void local_struct_array(const Particle* ps, float* out, int sel) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    Particle local[4];
    for (int k = 0; k < 4; ++k) local[k] = ps[t * 4 + k];
    Particle p = local[sel & 3];
    out[t] = p.pos[sel % 3] + p.vel[(sel + 1) % 3] + (float)p.id;
}

extern "C" __global__ void local_stack_machine(const unsigned char* code, const float* consts, float* out, int len) {
    float stack[32];
    int sp = 0;
    for (int pc = 0; pc < len; ++pc) {
        unsigned char op = code[pc];
        switch (op & 7) {
        case 0: stack[sp++ & 31] = consts[op >> 3]; break;
        case 1: if (sp >= 2) { float b = stack[--sp & 31], a = stack[--sp & 31]; stack[sp++ & 31] = a + b; } break;
        case 2: if (sp >= 2) { float b = stack[--sp & 31], a = stack[--sp & 31]; stack[sp++ & 31] = a * b; } break;
        case 3: if (sp >= 1) { stack[(sp - 1) & 31] = -stack[(sp - 1) & 31]; } break;
        case 4: if (sp >= 1) { stack[sp & 31] = stack[(sp - 1) & 31]; sp++; } break;
        default: stack[sp++ & 31] = (float)threadIdx.x; break;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sp > 0 ? stack[(sp - 1) & 31] : 0.f;
}
