// drv_link, second module: the definitions link_main.cu refers to.
__device__ int link_bias = 1000;

__device__ int link_combine(int a, int b) { return a * b + 7; }
