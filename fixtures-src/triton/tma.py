"""Triton kernels fed by TMA (sm_90 only): host-side tensor descriptors (`TensorDescriptor`,
a 128-byte `.param .align 64 .b8` CUtensorMap parameter followed by the shape and strides) and
device-side ones (`tl.make_tensor_descriptor`, built in a global scratch buffer with
`tensormap.replace` and published with `tensormap.cp_fenceproxy`). Loads are
`cp.async.bulk.tensor` into 128-byte-swizzled shared memory completing on an mbarrier, stores
`cp.async.bulk.tensor` from shared memory in a bulk group; the GEMMs feed `tl.dot` (wgmma)."""
import triton
import triton.language as tl


@triton.jit
def tma_copy_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    x = in_desc.load([pm * BM, pn * BN])
    out_desc.store([pm * BM, pn * BN], x * 2 + 1)


@triton.jit
def dev_desc_copy_kernel(a_ptr, o_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    ind = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    outd = tl.make_tensor_descriptor(o_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    x = ind.load([pm * BM, pn * BN])
    outd.store([pm * BM, pn * BN], x - 3)


@triton.jit
def tma_matmul_kernel(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)


@triton.jit
def dev_desc_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)


@triton.jit
def persistent_matmul_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    """Persistent: NUM_SMS programs loop over the output tiles (the mbarriers' phases carry across
    tiles); Triton software-pipelines the TMA loads of the flattened loop."""
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(0), num_m * num_n, NUM_SMS, flatten=True):
        pid_m = tile // num_n
        pid_n = tile % num_n
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
            b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)



# A Gluon kernel loading in TMA im2col mode (imports here keep the line numbers, and so the
# `.loc` lines, of the kernels above).
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as ttgl  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma  # noqa: E402


@gluon.jit
def gluon_im2col_kernel(in_desc, out_desc, coord_n: int, coord_h: int, coord_w: int, coord_c: int,
                        offset_h: tl.constexpr, offset_w: tl.constexpr):
    """Gluon: one TMA im2col load (16 pixels x 32 channels, host-side im2col descriptor) into
    shared memory, then a tiled TMA store of the [16, 32] block (after Triton's Gluon tutorial
    13-tma-im2col)."""
    smem = ttgl.allocate_shared_memory(in_desc.dtype, in_desc.block_shape, in_desc.layout)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_load_im2col(in_desc, [coord_n, coord_h, coord_w, coord_c],
                          [ttgl.to_tensor(offset_h).to(ttgl.int16), ttgl.to_tensor(offset_w).to(ttgl.int16)], bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    tma.async_store(out_desc, [0, 0], smem)
    tma.store_wait(pendings=0)


_L128 = repr(ttgl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=32, rank=2))

FIXTURES = [
    dict(name="copy_host_desc_f32_16x32", fn=tma_copy_kernel,
         signature={"in_desc": "tensordesc<fp32[16, 32]>", "out_desc": "tensordesc<fp32[16, 32]>",
                    "BM": "constexpr", "BN": "constexpr"},
         constexprs={"BM": 16, "BN": 32}, options={"num_warps": 4}, archs=[90]),
    dict(name="copy_dev_desc_f32_16x32", fn=dev_desc_copy_kernel,
         signature={"a_ptr": "*fp32", "o_ptr": "*fp32", "M": "i32", "N": "i32", "BM": "constexpr", "BN": "constexpr"},
         constexprs={"BM": 16, "BN": 32}, options={"num_warps": 4}, divisible=["a_ptr", "o_ptr"], archs=[90]),
    dict(name="matmul_host_desc_fp16_64x64x32_s3", fn=tma_matmul_kernel,
         signature={"a_desc": "tensordesc<fp16[64, 32]>", "b_desc": "tensordesc<fp16[32, 64]>",
                    "c_desc": "tensordesc<fp32[64, 64]>", "K": "i32",
                    "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, options={"num_warps": 4, "num_stages": 3},
         archs=[90]),
    dict(name="matmul_dev_desc_fp16_64x64x32", fn=dev_desc_matmul_kernel,
         signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                    "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, options={"num_warps": 4, "num_stages": 2},
         divisible=["a_ptr", "b_ptr", "c_ptr"], archs=[90]),
    dict(name="matmul_persistent_fp16_64x64x32_s3", fn=persistent_matmul_kernel,
         signature={"a_desc": "tensordesc<fp16[64, 32]>", "b_desc": "tensordesc<fp16[32, 64]>",
                    "c_desc": "tensordesc<fp32[64, 64]>", "M": "i32", "N": "i32", "K": "i32",
                    "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr", "NUM_SMS": "constexpr"},
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "NUM_SMS": 2},
         options={"num_warps": 4, "num_stages": 3}, archs=[90]),
    dict(name="gluon_im2col_f32_16x32", fn=gluon_im2col_kernel,
         signature={"in_desc": f"tensordesc_im2col<fp32[16,32],{_L128}>", "out_desc": f"tensordesc<fp32[16,32],{_L128}>",
                    "coord_n": "i32", "coord_h": "i32", "coord_w": "i32", "coord_c": "i32",
                    "offset_h": "constexpr", "offset_w": "constexpr"},
         constexprs={"offset_h": 1, "offset_w": 1}, options={"num_warps": 1}, archs=[90]),
]
