// fixture: min_sm=70 variants=debug
// Device-side malloc/free/memcpy/memset (calls to the device heap runtime), placement into local buffers.
extern "C" __global__ void heap_alloc(int* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* buf = (int*)malloc(sizeof(int) * n);
    if (!buf) { out[t] = -1; return; }
    for (int i = 0; i < n; ++i) buf[i] = i * t;
    int s = 0;
    for (int i = 0; i < n; ++i) s += buf[i];
    free(buf);
    out[t] = s;
}

extern "C" __global__ void memcpy_memset(const char* src, char* dst, int n) {
    char local[64];
    memset(local, threadIdx.x & 0x7f, sizeof(local));
    int m = n < 64 ? n : 64;
    memcpy(local, src + blockIdx.x * n, m);
    memcpy(dst + (blockIdx.x * blockDim.x + threadIdx.x) * 64, local, 64);
}

struct Node { int value; Node* next; };
extern "C" __global__ void linked_list(int* out, int len) {
    Node* head = nullptr;
    for (int i = 0; i < len; ++i) {
        Node* nd = (Node*)malloc(sizeof(Node));
        nd->value = i * (int)threadIdx.x;
        nd->next = head;
        head = nd;
    }
    int s = 0;
    while (head) { s += head->value; Node* nx = head->next; free(head); head = nx; }
    out[threadIdx.x] = s;
}
