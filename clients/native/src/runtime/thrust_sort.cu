// thrust_sort: Thrust (CUB underneath) on a device_vector of 100000 ints:
// thrust::sort, thrust::reduce, thrust::transform with a functor, thrust::sequence,
// thrust::count_if, copy back; every result compared with the host's std:: algorithms.
#include "check.h"
#include <algorithm>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <vector>

struct twice_plus_one {
    __host__ __device__ int operator()(int x) const { return 2 * x + 1; }
};

struct is_negative {
    __host__ __device__ bool operator()(int x) const { return x < 0; }
};

int main() {
    const int n = 100000;
    std::vector<int> h(n);
    unsigned state = 12345u;
    for (int i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;  // LCG, deterministic
        h[i] = (int)((state >> 8) % 2000001u) - 1000000;
    }
    thrust::device_vector<int> d(h.begin(), h.end());
    thrust::sort(d.begin(), d.end());
    std::vector<int> sorted = h;
    std::sort(sorted.begin(), sorted.end());
    thrust::host_vector<int> back = d;
    for (int i = 0; i < n; i++)
        if (back[i] != sorted[i]) fail_mismatch_ll("sorted", i, back[i], sorted[i]);
    printf("thrust::sort of %d ints: ok (min=%d max=%d)\n", n, back[0], back[n - 1]);

    long long host_sum = 0;
    for (int v : h) host_sum += v;
    long long sum = thrust::reduce(d.begin(), d.end(), 0LL, thrust::plus<long long>());
    printf("thrust::reduce: %lld (host %lld)\n", sum, host_sum);
    REQUIRE(sum == host_sum);

    thrust::device_vector<int> t(n);
    thrust::transform(d.begin(), d.end(), t.begin(), twice_plus_one());
    thrust::host_vector<int> tb = t;
    for (int i = 0; i < n; i++)
        if (tb[i] != 2 * sorted[i] + 1) fail_mismatch_ll("transform", i, tb[i], 2 * sorted[i] + 1);
    printf("thrust::transform: ok\n");

    long long neg = thrust::count_if(d.begin(), d.end(), is_negative());
    long long host_neg = std::count_if(h.begin(), h.end(), [](int x) { return x < 0; });
    printf("thrust::count_if(x<0): %lld (host %lld)\n", neg, host_neg);
    REQUIRE(neg == host_neg);

    thrust::device_vector<int> seq(1000);
    thrust::sequence(seq.begin(), seq.end(), 5, 3);
    int seq_sum = thrust::reduce(seq.begin(), seq.end());
    printf("thrust::sequence sum: %d\n", seq_sum);
    REQUIRE(seq_sum == 1000 * 5 + 3 * 999 * 1000 / 2);
    printf("PASSED\n");
    return 0;
}
