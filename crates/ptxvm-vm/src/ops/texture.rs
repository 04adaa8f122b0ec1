//! Texture sampling and surface addressing: the pure semantics of `tex`, `tld4`, `txq`,
//! `suld`, `sust`, `sured` and `suq` over a texture or surface object (`crate::texobj`).
//!
//! A resource is a [`Layout`] of texels in device memory (a CUDA-array-like block or pitched
//! linear memory); a texture adds a [`Sampler`]. Sampling follows the CUDA Programming
//! Guide's appendix "Texture Fetching":
//!
//! - coordinates: normalized ones are scaled by the extent (`u = x·N`, in f32); the offset
//!   operand adds whole texels to `u`;
//! - nearest-point: `T[floor(u)]`;
//! - linear: `u_B = u − 0.5` (f32), `i = floor(u_B)`, `α = u_B − i`, held in 9-bit fixed point
//!   with 8 fractional bits (`k = floor(α·256 + 0.5)`, rounded to nearest, so `α = k/256`, 0 ≤ k ≤ 256);
//!   `tex = (1−α)·T[i] + α·T[i+1]`, and in 2D/3D the products of the per-axis weights. The
//!   weights are exact in f32; each term `w·T` is rounded to f32 and the terms are added in
//!   f32 in the order x fastest, then y, then z (`tools/tex_ref.py` computes the same);
//! - address modes act on texel indices: clamp to `[0, N−1]`; border reads the border colour
//!   for an index outside; wrap takes the index modulo N and mirror reflects it with period
//!   2N (both only with normalized coordinates: as in CUDA, unnormalized coordinates clamp
//!   for them);
//! - element reads: float formats (f16, f32) read as f32; 8- and 16-bit integers read as
//!   their integer value, or with `read_float` as normalized floats (`v/255`, `v/65535`,
//!   `max(v/127, −1)`, `max(v/32767, −1)`, one f32 division); a texel's missing channels read
//!   as 0, and alpha as 1 (1.0 for float results).
//!
//! Every function is total on arbitrary guest values: coordinates are saturated to i64,
//! sizes are checked arithmetic, and memory is read through the caller's checked reader.

/// A texel channel's element format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

impl Elem {
    pub fn bytes(self) -> u64 {
        match self {
            Elem::U8 | Elem::S8 => 1,
            Elem::U16 | Elem::S16 | Elem::F16 => 2,
            Elem::U32 | Elem::S32 | Elem::F32 => 4,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Elem::F16 | Elem::F32)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Elem::S8 | Elem::S16 | Elem::S32)
    }

    pub fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::S8 => "s8",
            Elem::U16 => "u16",
            Elem::S16 => "s16",
            Elem::U32 => "u32",
            Elem::S32 => "s32",
            Elem::F16 => "f16",
            Elem::F32 => "f32",
        }
    }

    /// The OpenCL 1.0 channel data type `txq`/`suq` report (PTX ISA §5.3.3).
    pub fn cl_type(self, read_float: bool) -> u32 {
        match (self, read_float) {
            (Elem::S8, true) => 0x10D0,
            (Elem::S16, true) => 0x10D1,
            (Elem::U8, true) => 0x10D2,
            (Elem::U16, true) => 0x10D3,
            (Elem::S8, false) => 0x10D7,
            (Elem::S16, false) => 0x10D8,
            (Elem::S32, _) => 0x10D9,
            (Elem::U8, false) => 0x10DA,
            (Elem::U16, false) => 0x10DB,
            (Elem::U32, _) => 0x10DC,
            (Elem::F16, _) => 0x10DD,
            (Elem::F32, _) => 0x10DE,
        }
    }
}

/// The OpenCL channel order of 1, 2 or 4 channels (`CL_R`, `CL_RG`, `CL_RGBA`).
pub fn cl_order(channels: u8) -> u32 {
    match channels {
        1 => 0x10B0,
        2 => 0x10B2,
        _ => 0x10B5,
    }
}

/// The shape of a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Geom {
    D1,
    D2,
    D3,
    /// A 1D layered array (`tex.a1d`, `suld.b.a1d`).
    Layered1,
    /// A 2D layered array (`tex.a2d`, `suld.b.a2d`).
    Layered2,
    /// A cubemap: six square 2D layers, the faces +X, −X, +Y, −Y, +Z, −Z (`tex.cube`).
    Cube,
    /// An array of cubemaps: 6·n layers (`tex.acube`).
    CubeLayered,
}

impl Geom {
    /// Coordinates within one layer.
    pub fn dims(self) -> usize {
        match self {
            Geom::D1 | Geom::Layered1 => 1,
            Geom::D2 | Geom::Layered2 | Geom::Cube | Geom::CubeLayered => 2,
            Geom::D3 => 3,
        }
    }

    /// Whether the coordinates start with an array index.
    pub fn layered(self) -> bool {
        matches!(self, Geom::Layered1 | Geom::Layered2 | Geom::CubeLayered)
    }

    pub fn is_cube(self) -> bool {
        matches!(self, Geom::Cube | Geom::CubeLayered)
    }

    /// The instruction modifier naming the geometry.
    pub fn name(self) -> &'static str {
        match self {
            Geom::D1 => ".1d",
            Geom::D2 => ".2d",
            Geom::D3 => ".3d",
            Geom::Layered1 => ".a1d",
            Geom::Layered2 => ".a2d",
            Geom::Cube => ".cube",
            Geom::CubeLayered => ".acube",
        }
    }

    pub fn from_mod(m: &str) -> Option<Geom> {
        Some(match m {
            ".1d" => Geom::D1,
            ".2d" => Geom::D2,
            ".3d" => Geom::D3,
            ".a1d" => Geom::Layered1,
            ".a2d" => Geom::Layered2,
            ".cube" => Geom::Cube,
            ".acube" => Geom::CubeLayered,
            _ => return None,
        })
    }
}

/// Where a resource's texels are: texel `(x, y, z)` of layer `l` is at
/// `base + l·layer_stride + z·slice + y·pitch + x·texel_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub base: u64,
    pub elem: Elem,
    /// 1, 2 or 4.
    pub channels: u8,
    pub geom: Geom,
    pub width: u64,
    /// 1 for 1D resources.
    pub height: u64,
    /// 1 for 1D and 2D resources.
    pub depth: u64,
    /// 1 for resources that are not layered.
    pub layers: u64,
    /// Bytes from one row to the next.
    pub pitch: u64,
    /// Bytes from one 2D slice to the next (3D).
    pub slice: u64,
    pub layer_stride: u64,
    /// Pitched linear memory rather than an array (`suq.memory_layout`).
    pub linear: bool,
    /// Mipmap levels (1: a plain resource). Level 0 is this layout; level `i + 1` follows
    /// level `i` densely packed, each extent halved and at least 1 (layers kept), as
    /// `cudaMallocMipmappedArray` makes them ([`Layout::level`]).
    pub levels: u32,
}

/// Most mipmap levels of a resource whose largest extent is `n`: `floor(log2(n)) + 1`
/// (CUDA's rule for `cudaMallocMipmappedArray`).
pub fn max_levels(n: u64) -> u32 {
    64 - n.max(1).leading_zeros()
}

/// Largest extent of a dimension (CUDA's 3D texture limit is 16384; arrays may be larger
/// in 1D, so the bound here only keeps index arithmetic far from overflow).
pub const MAX_EXTENT: u64 = 1 << 31;

impl Layout {
    /// A densely packed layout (rows, then slices, then layers).
    #[allow(clippy::too_many_arguments)]
    pub fn packed(
        base: u64,
        elem: Elem,
        channels: u8,
        geom: Geom,
        width: u64,
        height: u64,
        depth: u64,
        layers: u64,
    ) -> Option<Layout> {
        let texel = elem.bytes() * channels as u64;
        let pitch = width.checked_mul(texel)?;
        let slice = pitch.checked_mul(height)?;
        let layer_stride = slice.checked_mul(depth)?;
        layer_stride.checked_mul(layers)?;
        Some(Layout {
            base,
            elem,
            channels,
            geom,
            width,
            height,
            depth,
            layers,
            pitch,
            slice,
            layer_stride,
            linear: false,
            levels: 1,
        })
    }

    /// A densely packed chain of `levels` mipmap levels over this packed layout (level 0).
    pub fn with_levels(self, levels: u32) -> Layout {
        Layout { levels, ..self }
    }

    /// Level `i` of the chain as a one-level packed layout (`None`: no such level, or the
    /// offset overflows). Level 0 is the layout itself.
    pub fn level(&self, i: u32) -> Option<Layout> {
        let one = Layout { levels: 1, ..*self };
        if i == 0 {
            return (self.levels >= 1).then_some(one);
        }
        if i >= self.levels || self.linear {
            return None;
        }
        let mut base = self.base;
        let mut lv = one;
        for _ in 0..i {
            base = base.checked_add(lv.span()?)?;
            let half = |n: u64| (n >> 1).max(1);
            let depth = if self.geom == Geom::D3 {
                half(lv.depth)
            } else {
                1
            };
            let height = if self.geom.dims() >= 2 {
                half(lv.height)
            } else {
                1
            };
            lv = Layout::packed(
                base,
                self.elem,
                self.channels,
                self.geom,
                half(lv.width),
                height,
                depth,
                self.layers,
            )?;
        }
        Some(lv)
    }

    pub fn texel_bytes(&self) -> u64 {
        self.elem.bytes() * self.channels as u64
    }

    /// The extent of dimension `d` (0, 1, 2).
    pub fn extent(&self, d: usize) -> u64 {
        match d {
            0 => self.width,
            1 => self.height,
            _ => self.depth,
        }
    }

    /// Bytes from the base to the end of the last texel (of the last mipmap level), `None`
    /// on overflow.
    pub fn span(&self) -> Option<u64> {
        if self.levels > 1 {
            let top = self.level(self.levels - 1)?;
            return (top.base - self.base).checked_add(top.span()?);
        }
        let last = self.texel_offset(
            self.layers.checked_sub(1)?,
            [
                self.width.checked_sub(1)?,
                self.height.checked_sub(1)?,
                self.depth.checked_sub(1)?,
            ],
        )?;
        last.checked_add(self.texel_bytes())
    }

    /// A consistency check of the shape: extents, channels, geometry, strides.
    pub fn validate(&self) -> Result<(), String> {
        if !matches!(self.channels, 1 | 2 | 4) {
            return Err(format!(
                "{} channels (a texel has 1, 2 or 4)",
                self.channels
            ));
        }
        let dims = self.geom.dims();
        for (d, n) in [self.width, self.height, self.depth]
            .into_iter()
            .enumerate()
        {
            if n == 0 || n > MAX_EXTENT {
                return Err(format!(
                    "extent {n} in dimension {d} (each is 1 to {MAX_EXTENT})"
                ));
            }
            if d >= dims && n != 1 {
                return Err(format!(
                    "a {} resource has extent 1 in dimension {d}, not {n}",
                    self.geom.name()
                ));
            }
        }
        if self.geom.is_cube()
            && (self.width != self.height
                || !self.layers.is_multiple_of(6)
                || (self.geom == Geom::Cube && self.layers != 6))
        {
            return Err(format!(
                "a cubemap has square faces and 6 layers per cube, not {}x{} and {} layers",
                self.width, self.height, self.layers
            ));
        }
        let one_layer = !self.geom.layered() && !self.geom.is_cube();
        if self.layers == 0 || self.layers > MAX_EXTENT || (one_layer && self.layers != 1) {
            return Err(format!(
                "{} layers for a {} resource",
                self.layers,
                self.geom.name()
            ));
        }
        let row = self.width.checked_mul(self.texel_bytes());
        if row.is_none_or(|r| self.pitch < r) {
            return Err(format!(
                "row pitch {} is less than a row of {} texels of {} bytes",
                self.pitch,
                self.width,
                self.texel_bytes()
            ));
        }
        if self.height > 1
            && self
                .pitch
                .checked_mul(self.height)
                .is_none_or(|s| self.slice < s && self.depth > 1)
        {
            return Err(format!("slice pitch {} is too small", self.slice));
        }
        let most = max_levels(self.width.max(self.height).max(self.depth));
        if self.levels == 0 || self.levels > most {
            return Err(format!(
                "{} mipmap levels for a {}x{}x{} resource (1 to {most}: floor(log2(largest extent)) + 1)",
                self.levels, self.width, self.height, self.depth
            ));
        }
        if self.levels > 1 && self.linear {
            return Err("pitched linear memory has one mipmap level".into());
        }
        if self.span().is_none() {
            return Err("the resource's size overflows 64 bits".into());
        }
        Ok(())
    }

    /// The byte offset of texel `c` of layer `layer` (indices assumed in range).
    fn texel_offset(&self, layer: u64, c: [u64; 3]) -> Option<u64> {
        layer
            .checked_mul(self.layer_stride)?
            .checked_add(c[2].checked_mul(self.slice)?)?
            .checked_add(c[1].checked_mul(self.pitch)?)?
            .checked_add(c[0].checked_mul(self.texel_bytes())?)
    }

    /// The device address of an in-range texel.
    pub fn texel_addr(&self, layer: u64, c: [u64; 3]) -> Option<u64> {
        self.base.checked_add(self.texel_offset(layer, c)?)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    Point,
    Linear,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrMode {
    Wrap,
    Clamp,
    Mirror,
    Border,
}

impl AddrMode {
    /// CUDA's `cudaTextureAddressMode` value (what `txq.addr_mode_N` returns).
    pub fn code(self) -> u32 {
        match self {
            AddrMode::Wrap => 0,
            AddrMode::Clamp => 1,
            AddrMode::Mirror => 2,
            AddrMode::Border => 3,
        }
    }
}

/// A texture's sampling state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampler {
    pub filter: Filter,
    /// Per dimension x, y, z.
    pub address: [AddrMode; 3],
    pub normalized: bool,
    /// Read 8/16-bit integers as normalized floats.
    pub read_float: bool,
    pub border: [f32; 4],
    /// Between mipmap levels: the nearest level, or a blend of the two around the LOD
    /// (`mipmapFilterMode`).
    pub mip_filter: Filter,
    /// Added to an explicit or gradient LOD (`mipmapLevelBias`).
    pub lod_bias: f32,
    /// The LOD is clamped to `[min_lod, max_lod]` (`min/maxMipmapLevelClamp`), then to the
    /// levels the resource has.
    pub min_lod: f32,
    pub max_lod: f32,
}

impl Default for Sampler {
    /// Point filtering, clamp, unnormalized coordinates, element reads, a zero border, and
    /// every mipmap level reachable (no bias, clamps `[0, +inf]`).
    fn default() -> Sampler {
        Sampler {
            filter: Filter::Point,
            address: [AddrMode::Clamp; 3],
            normalized: false,
            read_float: false,
            border: [0.0; 4],
            mip_filter: Filter::Point,
            lod_bias: 0.0,
            min_lod: 0.0,
            max_lod: f32::INFINITY,
        }
    }
}

impl Sampler {
    /// Whether the sampler can read the layout (CUDA's rules for texture descriptors).
    pub fn validate(&self, lay: &Layout) -> Result<(), String> {
        if self.read_float && matches!(lay.elem, Elem::U32 | Elem::S32) {
            return Err(format!(
                "read=float needs 8- or 16-bit integer elements or float ones, not {}",
                lay.elem.name()
            ));
        }
        if self.filter == Filter::Linear && !lay.elem.is_float() && !self.read_float {
            return Err(format!(
                "linear filtering returns floats: {} elements need read=float",
                lay.elem.name()
            ));
        }
        if lay.levels > 1
            && self.mip_filter == Filter::Linear
            && !lay.elem.is_float()
            && !self.read_float
        {
            return Err(format!(
                "linear mipmap filtering returns floats: {} elements need read=float",
                lay.elem.name()
            ));
        }
        Ok(())
    }

    /// Whether reads return floats.
    pub fn float_result(&self, lay: &Layout) -> bool {
        lay.elem.is_float() || self.read_float
    }
}

/// A checked reader of device memory: fills the buffer from the address or fails.
pub type Read<'a> = dyn FnMut(u64, &mut [u8]) -> Result<(), String> + 'a;

/// One texel's four channels as returned: f32 values or 32-bit integers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Texel {
    F([f32; 4]),
    I([u32; 4]),
}

impl Texel {
    /// The four results as register bits.
    pub fn bits(self) -> [u32; 4] {
        match self {
            Texel::F(v) => v.map(f32::to_bits),
            Texel::I(v) => v,
        }
    }
}

/// Reads the raw integer of channel element `b` (little-endian, sign- or zero-extended).
fn raw(elem: Elem, b: &[u8]) -> u32 {
    let mut w = [0u8; 4];
    let n = (elem.bytes() as usize).min(b.len());
    w[..n].copy_from_slice(&b[..n]);
    let v = u32::from_le_bytes(w);
    match elem {
        Elem::S8 => v as u8 as i8 as i32 as u32,
        Elem::S16 => v as u16 as i16 as i32 as u32,
        _ => v,
    }
}

/// Converts a texel's bytes to its channels.
pub fn decode_texel(lay: &Layout, read_float: bool, bytes: &[u8]) -> Texel {
    let eb = lay.elem.bytes() as usize;
    let float = lay.elem.is_float() || read_float;
    let mut f = [0.0, 0.0, 0.0, 1.0f32];
    let mut i = [0, 0, 0, 1u32];
    for c in 0..(lay.channels as usize).min(4) {
        let b = bytes.get(c * eb..).unwrap_or(&[]);
        let v = raw(lay.elem, b);
        if float {
            f[c] = match lay.elem {
                Elem::F32 => f32::from_bits(v),
                Elem::F16 => ptxvm_fp::convert::cvt_f16_to_f32(v as u16, false, false),
                Elem::U8 => v as f32 / 255.0,
                Elem::U16 => v as f32 / 65535.0,
                Elem::S8 => (v as i32 as f32 / 127.0).max(-1.0),
                Elem::S16 => (v as i32 as f32 / 32767.0).max(-1.0),
                // Refused by `Sampler::validate`; read as the integer's value.
                Elem::U32 => v as f32,
                Elem::S32 => v as i32 as f32,
            };
        } else {
            i[c] = v;
        }
    }
    if float { Texel::F(f) } else { Texel::I(i) }
}

/// Applies an address mode to a texel index: `None` is a border texel.
fn address(i: i64, n: u64, mode: AddrMode, normalized: bool) -> Option<u64> {
    let n = n.clamp(1, MAX_EXTENT) as i64;
    let mode = match mode {
        AddrMode::Wrap | AddrMode::Mirror if !normalized => AddrMode::Clamp,
        m => m,
    };
    Some(match mode {
        AddrMode::Clamp => i.clamp(0, n - 1) as u64,
        AddrMode::Border => {
            if (0..n).contains(&i) {
                i as u64
            } else {
                return None;
            }
        }
        AddrMode::Wrap => i.rem_euclid(n) as u64,
        AddrMode::Mirror => {
            let m = i.rem_euclid(2 * n);
            (if m >= n { 2 * n - 1 - m } else { m }) as u64
        }
    })
}

/// `floor(x)` as an index (NaN reads as 0, infinities saturate).
fn floor_index(x: f32) -> i64 {
    // `as` saturates and maps NaN to 0; the clamp keeps index arithmetic from overflowing.
    (x.floor() as i64).clamp(-(1 << 40), 1 << 40)
}

/// Depth compare (`tex`/`tld4` with the `f` operand): channel `ch` of a texel against the
/// reference value `f`; the comparison passes when `f <= v` (OpenGL's default `LEQUAL`; the
/// manual does not name the function, and NaN fails), giving 1.0 (else 0.0) in every channel.
/// Integer texels compare by value.
fn depth_compare(lay: &Layout, t: Texel, f: f32, ch: usize) -> Texel {
    let ch = ch.min(3);
    let v = match t {
        Texel::F(v) => v[ch],
        Texel::I(v) if lay.elem.is_signed() => v[ch] as i32 as f32,
        Texel::I(v) => v[ch] as f32,
    };
    Texel::F([if f <= v { 1.0 } else { 0.0 }; 4])
}

/// Fetches one texel (an address-moded index per dimension; `None` reads the border), with
/// depth compare against `(f, channel)` when given.
fn fetch(
    lay: &Layout,
    s: &Sampler,
    layer: u64,
    idx: [Option<u64>; 3],
    cmp: Option<(f32, usize)>,
    read: &mut Read,
) -> Result<Texel, String> {
    let t = fetch_texel(lay, s, layer, idx, read)?;
    Ok(match cmp {
        Some((f, ch)) => depth_compare(lay, t, f, ch),
        None => t,
    })
}

/// Fetches one texel's channels as read.
fn fetch_texel(
    lay: &Layout,
    s: &Sampler,
    layer: u64,
    idx: [Option<u64>; 3],
    read: &mut Read,
) -> Result<Texel, String> {
    let (Some(x), Some(y), Some(z)) = (idx[0], idx[1], idx[2]) else {
        return Ok(if s.float_result(lay) {
            Texel::F(s.border)
        } else {
            Texel::I(s.border.map(|v| v as i32 as u32))
        });
    };
    let addr = lay
        .texel_addr(layer, [x, y, z])
        .ok_or("texel address overflows")?;
    let mut buf = [0u8; 16];
    let n = lay.texel_bytes().min(16) as usize;
    read(addr, &mut buf[..n])?;
    Ok(decode_texel(lay, s.read_float, &buf[..n]))
}

/// The layer an array coordinate selects (clamped to the array, as CUDA does).
pub fn layer_of(lay: &Layout, index: u32) -> u64 {
    (index as u64).min(lay.layers.saturating_sub(1))
}

/// `tex` with integer coordinates: the texel at `c + off` (no filtering), compared with the
/// depth reference `cmp` when given.
pub fn fetch_int(
    lay: &Layout,
    s: &Sampler,
    layer: u64,
    c: [i32; 3],
    off: [i32; 3],
    cmp: Option<f32>,
    read: &mut Read,
) -> Result<[u32; 4], String> {
    let dims = lay.geom.dims();
    let mut idx = [Some(0u64); 3];
    for d in 0..dims {
        let i = c[d] as i64 + off[d] as i64;
        idx[d] = address(i, lay.extent(d), s.address[d], s.normalized);
    }
    Ok(fetch(lay, s, layer, idx, cmp.map(|f| (f, 0)), read)?.bits())
}

/// The unnormalized coordinate of dimension `d`.
fn unnormalize(lay: &Layout, s: &Sampler, x: f32, off: i32, d: usize) -> f32 {
    let u = if s.normalized {
        x * lay.extent(d) as f32
    } else {
        x
    };
    u + off as f32
}

/// The 9-bit fixed-point weight `k` (α = k/256) and the lower index of linear filtering.
pub fn linear_weight(u: f32) -> (i64, u32) {
    let ub = u - 0.5;
    let fl = ub.floor();
    let a = ub - fl;
    // Rounded to nearest (exact in f64); NaN → 0 (the `as` conversion); 0 ≤ a < 1 gives
    // 0 ≤ k ≤ 256.
    let k = ((a as f64 * 256.0 + 0.5).floor() as u32).min(256);
    (floor_index(ub), k)
}

/// `tex` with float coordinates: point or linear filtering; with a depth reference `cmp`, the
/// filtering weighs the texels' comparison results (1.0 or 0.0, [`depth_compare`] on the
/// first channel) instead of their values.
pub fn sample(
    lay: &Layout,
    s: &Sampler,
    layer: u64,
    c: [f32; 3],
    off: [i32; 3],
    cmp: Option<f32>,
    read: &mut Read,
) -> Result<[u32; 4], String> {
    let dims = lay.geom.dims();
    let linear = s.filter == Filter::Linear && (s.float_result(lay) || cmp.is_some());
    let cmp = cmp.map(|f| (f, 0));
    if !linear {
        let mut idx = [Some(0u64); 3];
        for d in 0..dims {
            let u = unnormalize(lay, s, c[d], off[d], d);
            idx[d] = address(floor_index(u), lay.extent(d), s.address[d], s.normalized);
        }
        return Ok(fetch(lay, s, layer, idx, cmp, read)?.bits());
    }
    // Per dimension: the two indices and their weights (k/256 and (256-k)/256).
    let mut lo = [0i64; 3];
    let mut w = [[1.0f32, 0.0]; 3];
    for d in 0..dims {
        let (i, k) = linear_weight(unnormalize(lay, s, c[d], off[d], d));
        lo[d] = i;
        w[d] = [(256 - k) as f32 / 256.0, k as f32 / 256.0];
    }
    let n = |d: usize| if d < dims { 2 } else { 1 };
    let mut acc: Option<[f32; 4]> = None;
    for dz in 0..n(2) {
        for dy in 0..n(1) {
            for dx in 0..n(0) {
                let wt = w[0][dx] * w[1][dy] * w[2][dz];
                let mut idx = [Some(0u64); 3];
                for (d, o) in [dx, dy, dz].into_iter().enumerate().take(dims) {
                    idx[d] = address(
                        lo[d].saturating_add(o as i64),
                        lay.extent(d),
                        s.address[d],
                        s.normalized,
                    );
                }
                let Texel::F(t) = fetch(lay, s, layer, idx, cmp, read)? else {
                    return Err("linear filtering of integer texels".into());
                };
                let term = t.map(|v| wt * v);
                acc = Some(match acc {
                    None => term,
                    Some(a) => [
                        a[0] + term[0],
                        a[1] + term[1],
                        a[2] + term[2],
                        a[3] + term[3],
                    ],
                });
            }
        }
    }
    Ok(acc.unwrap_or([0.0; 4]).map(f32::to_bits))
}

/// `tld4.comp`: channel `comp` of the 2×2 footprint linear filtering would use, in the order
/// lower left `(i, j+1)`, lower right `(i+1, j+1)`, upper right `(i+1, j)`, upper left
/// `(i, j)`. With a depth reference `cmp`, each of the four is the comparison result of that
/// channel (1.0 or 0.0, [`depth_compare`]).
#[allow(clippy::too_many_arguments)]
pub fn gather(
    lay: &Layout,
    s: &Sampler,
    layer: u64,
    c: [f32; 2],
    off: [i32; 2],
    comp: usize,
    cmp: Option<f32>,
    read: &mut Read,
) -> Result<[u32; 4], String> {
    let (i, _) = linear_weight(unnormalize(lay, s, c[0], off[0], 0));
    let (j, _) = linear_weight(unnormalize(lay, s, c[1], off[1], 1));
    let mut out = [0u32; 4];
    for (k, (dx, dy)) in [(0, 1), (1, 1), (1, 0), (0, 0)].into_iter().enumerate() {
        let idx = [
            address(i.saturating_add(dx), lay.width, s.address[0], s.normalized),
            address(j.saturating_add(dy), lay.height, s.address[1], s.normalized),
            Some(0),
        ];
        out[k] = fetch(lay, s, layer, idx, cmp.map(|f| (f, comp)), read)?.bits()[comp.min(3)];
    }
    Ok(out)
}

/// Cubemap face selection (`tex.cube`, the PTX manual): the coordinate of the largest
/// magnitude picks the face (ties: x before y before z), and the other two, divided by its
/// magnitude, give the normalized face coordinates, with the faces oriented as in CUDA's
/// cubemap table (OpenGL's convention): +X (−z, −y), −X (+z, −y), +Y (+x, +z), −Y (+x, −z),
/// +Z (+x, −y), −Z (−x, −y). Returns the face (0..6) and (u, v) in [0, 1].
pub fn cube_face(x: f32, y: f32, z: f32) -> (u64, f32, f32) {
    let (face, [(is, ss), (it, st)], im) = cube_axes(x, y, z);
    let p = [x, y, z];
    let (sc, tc) = (ss * p[is], st * p[it]);
    let ma = p[im].abs();
    // A zero (or NaN) direction reads face +X at its centre.
    let ma = if ma > 0.0 { ma } else { 1.0 };
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// The face a direction selects (ties: x before y before z) and how its face coordinates
/// are made: `sc = ss·p[is]`, `tc = st·p[it]`, the major axis `p[im]` (CUDA's cubemap
/// table, OpenGL's convention).
#[allow(clippy::type_complexity)]
fn cube_axes(x: f32, y: f32, z: f32) -> (u64, [(usize, f32); 2], usize) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, [(2, -1.0), (1, -1.0)], 0)
        } else {
            (1, [(2, 1.0), (1, -1.0)], 0)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, [(0, 1.0), (2, 1.0)], 1)
        } else {
            (3, [(0, 1.0), (2, -1.0)], 1)
        }
    } else if z >= 0.0 {
        (4, [(0, 1.0), (1, -1.0)], 2)
    } else {
        (5, [(0, -1.0), (1, -1.0)], 2)
    }
}

/// The face of a cubemap as a 2D layout, its layer, and the sampler that reads it: the face
/// coordinates are normalized and clamp at the face's edges (no seamless filtering).
pub fn cube_view(
    lay: &Layout,
    s: &Sampler,
    cube: u32,
    c: [f32; 3],
) -> (Layout, Sampler, u64, [f32; 2]) {
    let (face, u, v) = cube_face(c[0], c[1], c[2]);
    let cubes = (lay.layers / 6).max(1);
    let layer = (cube as u64).min(cubes - 1) * 6 + face;
    let face_lay = Layout {
        geom: Geom::Layered2,
        ..*lay
    };
    let smp = Sampler {
        normalized: true,
        address: [AddrMode::Clamp; 3],
        ..*s
    };
    (face_lay, smp, layer, [u, v])
}

/// How `tex` picks its mipmap level: the PTX modes `.base`, `.level` and `.grad`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lod {
    /// Level 0 (`.base`, or no mipmap mode).
    Base,
    /// An explicit level of detail (`.level` with `.f32` coordinates).
    Level(f32),
    /// An explicit level number (`.level` with `.s32` coordinates: the type of `lod`
    /// follows `.ctype`).
    Index(i32),
    /// The partials of the coordinates, dP/dx and dP/dy (`.grad`; x, y, z, or the
    /// direction of a cubemap lookup).
    Grad([f32; 3], [f32; 3]),
}

/// The level of detail of `.grad`'s partials, before bias and clamps:
/// `log2(max(|dP/dx·size|, |dP/dy·size|))`, each partial scaled by the level-0 extent of
/// its dimension when coordinates are normalized (unnormalized ones are in texels already),
/// the lengths Euclidean over the resource's dimensions; computed in f64 and rounded to f32.
/// A cubemap's partials are those of the face coordinates the direction projects to
/// (OpenGL's rule: `∂s/∂x = (∂sc/∂x·|ma| − sc·∂|ma|/∂x) / (2·ma²)`), scaled by the face size.
pub fn grad_lod(lay: &Layout, s: &Sampler, c: [f32; 3], dx: [f32; 3], dy: [f32; 3]) -> f32 {
    let len = |g: [f32; 3]| -> f64 {
        if lay.geom.is_cube() {
            let (_, [(is, ss), (it, st)], im) = cube_axes(c[0], c[1], c[2]);
            let ma = c[im] as f64;
            if ma == 0.0 || ma.is_nan() {
                return 0.0;
            }
            let dma = ma.signum() * g[im] as f64;
            let am = ma.abs();
            let n = lay.width as f64;
            let d = |i: usize, sg: f32| {
                let (sc, dsc) = (sg as f64 * c[i] as f64, sg as f64 * g[i] as f64);
                (dsc * am - sc * dma) / (2.0 * ma * ma) * n
            };
            let (du, dv) = (d(is, ss), d(it, st));
            return (du * du + dv * dv).sqrt();
        }
        let mut sum = 0.0f64;
        for (d, &v) in g.iter().enumerate().take(lay.geom.dims()) {
            let scale = if s.normalized {
                lay.extent(d) as f64
            } else {
                1.0
            };
            let v = v as f64 * scale;
            sum += v * v;
        }
        sum.sqrt()
    };
    len(dx).max(len(dy)).log2() as f32
}

/// The mipmap level a lookup reads and the weight `k/256` of the next level (0: that level
/// alone). The LOD (`.level`'s operand, or [`grad_lod`]) plus `lod_bias` (f32) is clamped to
/// `[min_lod, max_lod]` and then to `[0, levels − 1]` (NaN reads as the lower clamp), and
/// held, like the filter weights, with 8 fractional bits: `q = floor(λ·256 + 0.5)`. Point
/// mipmap filtering takes the nearest level, `(q + 127) >> 8` (a tie goes to the lower
/// level, OpenGL's `⌈λ + ½⌉ − 1`); linear takes level `q >> 8` and `k = q & 255`. Integer
/// coordinates (no filtering) and integer results take the nearest level; an integer LOD
/// (`.level` with `.s32` coordinates) is the level number, clamped to the chain.
pub fn select_level(lay: &Layout, s: &Sampler, c: [f32; 3], lod: Lod, blend: bool) -> (u32, u32) {
    let top = lay.levels.saturating_sub(1);
    let lambda = match lod {
        _ if top == 0 => return (0, 0),
        Lod::Base => return (0, 0),
        Lod::Index(i) => return (i.clamp(0, top as i32) as u32, 0),
        Lod::Level(l) => l + s.lod_bias,
        Lod::Grad(dx, dy) => grad_lod(lay, s, c, dx, dy) + s.lod_bias,
    };
    let lo = s.min_lod.max(0.0);
    let lambda = if lambda.is_nan() {
        lo
    } else {
        lambda.max(s.min_lod).min(s.max_lod)
    };
    let lambda = if lambda.is_nan() { 0.0 } else { lambda };
    let lambda = lambda.clamp(0.0, top as f32);
    let q = (lambda as f64 * 256.0 + 0.5).floor() as u32;
    if !blend || s.mip_filter == Filter::Point {
        return (((q + 127) >> 8).min(top), 0);
    }
    let (l, k) = (q >> 8, q & 255);
    if l >= top { (top, 0) } else { (l, k) }
}

/// One `tex` lookup: the mipmap level (or the two levels) [`select_level`] picks, each read
/// as a one-level resource (cubemap faces through [`cube_view`], integer coordinates through
/// [`fetch_int`], float ones through [`sample`]; coordinates and offsets in the level's own
/// texels), and two levels blended per channel as `(1 − k/256)·A + (k/256)·B` (each term
/// rounded to f32, then summed in f32). `c` holds the coordinates' bits (the layer index
/// first for a layered geometry is `layer_raw`).
#[allow(clippy::too_many_arguments)]
pub fn lookup(
    lay: &Layout,
    s: &Sampler,
    layer_raw: u32,
    c: [u32; 3],
    off: [i32; 3],
    int_coords: bool,
    cmp: Option<f32>,
    lod: Lod,
    read: &mut Read,
) -> Result<[u32; 4], String> {
    let fc = c.map(f32::from_bits);
    let one = |lv: &Layout, read: &mut Read| {
        if lv.geom.is_cube() {
            let (fl, fs, layer, [u, v]) = cube_view(lv, s, layer_raw, fc);
            sample(&fl, &fs, layer, [u, v, 0.0], [0; 3], cmp, read)
        } else if int_coords {
            let ci = c.map(|v| v as i32);
            fetch_int(lv, s, layer_of(lv, layer_raw), ci, off, cmp, read)
        } else {
            sample(lv, s, layer_of(lv, layer_raw), fc, off, cmp, read)
        }
    };
    let blend = !int_coords && (s.float_result(lay) || cmp.is_some());
    let (l, k) = select_level(lay, s, fc, lod, blend);
    let level = |i: u32| {
        lay.level(i)
            .ok_or_else(|| format!("mipmap level {i} of {} is out of range", lay.levels))
    };
    let a = one(&level(l)?, read)?;
    if k == 0 {
        return Ok(a);
    }
    let b = one(&level(l + 1)?, read)?;
    let (wa, wb) = ((256 - k) as f32 / 256.0, k as f32 / 256.0);
    let mut r = [0u32; 4];
    for i in 0..4 {
        r[i] = (wa * f32::from_bits(a[i]) + wb * f32::from_bits(b[i])).to_bits();
    }
    Ok(r)
}

/// How a surface instruction treats coordinates outside the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oob {
    /// `.trap`: the access faults.
    Trap,
    /// `.clamp`: the nearest whole location inside is accessed.
    Clamp,
    /// `.zero`: a load reads zeros, a store or reduction is dropped.
    Zero,
}

impl Oob {
    pub fn from_mod(m: &str) -> Option<Oob> {
        Some(match m {
            ".trap" => Oob::Trap,
            ".clamp" => Oob::Clamp,
            ".zero" => Oob::Zero,
            _ => return None,
        })
    }
}

/// Why a surface access has no address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SurfMiss {
    /// Out of range under `.zero`: read zeros, drop the store.
    Zero,
    /// Out of range under `.trap`, or misaligned: the fault's message.
    Fault(String),
}

/// The address of a surface access of `size` bytes at `c` (x in bytes when `bytes_x`, else
/// in texels) of layer `layer`.
pub fn surf_addr(
    lay: &Layout,
    layer: i64,
    c: [i32; 3],
    bytes_x: bool,
    size: u64,
    oob: Oob,
) -> Result<u64, SurfMiss> {
    let dims = lay.geom.dims();
    let tb = lay.texel_bytes();
    let row = lay.width.saturating_mul(tb);
    let mut x = c[0] as i64;
    if !bytes_x {
        x = x.saturating_mul(tb as i64);
    }
    let size = size.max(1);
    if x.rem_euclid(size as i64) != 0 {
        return Err(SurfMiss::Fault(format!(
            "misaligned surface access: byte offset {x} is not a multiple of the {size}-byte access"
        )));
    }
    let mut pos = [x, 0, 0];
    for d in 1..dims {
        pos[d] = c[d] as i64;
    }
    let lim = [
        row as i64 - size as i64,
        lay.height as i64 - 1,
        lay.depth as i64 - 1,
    ];
    let lmax = lay.layers as i64 - 1;
    let inside = (0..3).all(|d| (0..=lim[d]).contains(&pos[d])) && (0..=lmax).contains(&layer);
    let (pos, layer) = if inside {
        (pos, layer)
    } else {
        match oob {
            Oob::Zero => return Err(SurfMiss::Zero),
            Oob::Trap => {
                let what = if bytes_x { "byte " } else { "" };
                let mut coords = format!("{what}x={}", c[0]);
                for (d, n) in ["y", "z"].iter().enumerate().take(dims - 1) {
                    coords += &format!(", {n}={}", c[d + 1]);
                }
                if lay.geom.layered() {
                    coords += &format!(", layer={layer}");
                }
                return Err(SurfMiss::Fault(format!(
                    "surface access out of range at {coords}: the surface is {}×{}×{} texels of {tb} bytes{}, the access {size} bytes",
                    lay.width,
                    lay.height,
                    lay.depth,
                    if lay.geom.layered() {
                        format!(", {} layers", lay.layers)
                    } else {
                        String::new()
                    }
                )));
            }
            Oob::Clamp => {
                let mut p = pos;
                for d in 0..3 {
                    p[d] = p[d].clamp(0, lim[d].max(0));
                }
                p[0] -= p[0].rem_euclid(size as i64);
                (p, layer.clamp(0, lmax.max(0)))
            }
        }
    };
    if size > row {
        return Err(SurfMiss::Fault(format!(
            "a {size}-byte surface access is wider than a row of {row} bytes"
        )));
    }
    let off = (layer as u64)
        .checked_mul(lay.layer_stride)
        .and_then(|o| o.checked_add((pos[2] as u64).checked_mul(lay.slice)?))
        .and_then(|o| o.checked_add((pos[1] as u64).checked_mul(lay.pitch)?))
        .and_then(|o| o.checked_add(pos[0] as u64))
        .and_then(|o| lay.base.checked_add(o));
    off.ok_or_else(|| SurfMiss::Fault("surface address overflows".into()))
}

/// `sust.p`: the texel bytes of a formatted store of 32-bit values (R, G, B, A): f32 for
/// float formats (f16 rounded to nearest even), the low bits of the integer otherwise. A
/// channel the source does not give is written as 0 (the manual: unpredictable).
pub fn pack_texel(lay: &Layout, vals: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lay.texel_bytes() as usize);
    for c in 0..lay.channels as usize {
        let v = vals.get(c).copied().unwrap_or(0);
        match lay.elem {
            Elem::F32 => out.extend(v.to_le_bytes()),
            Elem::F16 => out.extend(
                ptxvm_fp::convert::cvt_f32_to_f16(
                    f32::from_bits(v),
                    ptxvm_fp::Rnd::Rn,
                    false,
                    false,
                    false,
                    false,
                )
                .to_le_bytes(),
            ),
            e => out.extend(&v.to_le_bytes()[..e.bytes() as usize]),
        }
    }
    out
}

/// A texture attribute (`txq`), or a surface attribute (`suq`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoords,
    ArraySize,
    NumMipmapLevels,
    NumSamples,
    ForceUnnormalizedCoords,
    FilterMode,
    AddrMode(u8),
    MemoryLayout,
}

impl Query {
    pub fn from_mod(m: &str) -> Option<Query> {
        Some(match m {
            ".width" => Query::Width,
            ".height" => Query::Height,
            ".depth" => Query::Depth,
            ".channel_data_type" => Query::ChannelDataType,
            ".channel_order" => Query::ChannelOrder,
            ".normalized_coords" => Query::NormalizedCoords,
            ".array_size" => Query::ArraySize,
            ".num_mipmap_levels" => Query::NumMipmapLevels,
            ".num_samples" => Query::NumSamples,
            ".force_unnormalized_coords" => Query::ForceUnnormalizedCoords,
            ".filter_mode" => Query::FilterMode,
            ".addr_mode_0" => Query::AddrMode(0),
            ".addr_mode_1" => Query::AddrMode(1),
            ".addr_mode_2" => Query::AddrMode(2),
            ".memory_layout" => Query::MemoryLayout,
            _ => return None,
        })
    }
}

/// The value of a query on a resource with (for textures) its sampler. Extents are in
/// texels; `array_size` is the layer count of a layered resource and 0 otherwise; a
/// texture has no samples (`num_mipmap_levels` is the resource's level count; `.level`
/// extents halve per level, at least 1, also past the last level); filter modes are CUDA's
/// `cudaTextureFilterMode` values (point 0, linear 1) and address modes its
/// `cudaTextureAddressMode` values (wrap 0, clamp 1, mirror 2, border 3).
pub fn query(lay: &Layout, s: Option<&Sampler>, q: Query, level: u32) -> u32 {
    let at_level = |n: u64| (n >> level.min(63)).max(1) as u32;
    match q {
        Query::Width => at_level(lay.width),
        Query::Height => at_level(lay.height),
        Query::Depth => at_level(lay.depth),
        Query::ChannelDataType => lay.elem.cl_type(s.is_some_and(|s| s.read_float)),
        Query::ChannelOrder => cl_order(lay.channels),
        Query::NormalizedCoords => s.is_some_and(|s| s.normalized) as u32,
        Query::ArraySize => {
            if lay.geom == Geom::CubeLayered {
                (lay.layers / 6).min(u32::MAX as u64) as u32
            } else if lay.geom.layered() {
                lay.layers.min(u32::MAX as u64) as u32
            } else {
                0
            }
        }
        Query::NumMipmapLevels => lay.levels,
        Query::NumSamples => 0,
        Query::ForceUnnormalizedCoords => 0,
        Query::FilterMode => s.is_some_and(|s| s.filter == Filter::Linear) as u32,
        Query::AddrMode(d) => s.map_or(0, |s| s.address[(d as usize).min(2)].code()),
        Query::MemoryLayout => lay.linear as u32,
    }
}

/// A decoded texture or surface instruction (`Exec::Texture`).
#[derive(Debug, Clone, PartialEq)]
pub struct TexInst {
    pub op: TexOp,
    /// The instruction as written (`tex.2d.v4.f32.f32`), for faults.
    pub name: String,
    /// The texture or surface: a handle, or the address of a `.texref`/`.surfref` variable.
    pub handle: crate::program::Src,
    /// Coordinates; a layered geometry's array index first.
    pub coords: Vec<crate::program::Src>,
    /// Texel offsets (`tex`, `tld4`).
    pub offs: Vec<crate::program::Src>,
    pub ds: Vec<crate::program::Dst>,
    /// Stored data (`sust`), the reduction operand (`sured`), the level (`txq.level`), the
    /// depth-compare value or the sample number (`tex`, `tld4`).
    pub data: Vec<crate::program::Src>,
    /// The residency predicate of `d|p` (always true: every texel is resident).
    pub resident: Option<crate::program::Dst>,
    /// The explicit sampler of `[a, b, c]` (independent texturing mode): a texture object
    /// (or a `.samplerref` variable holding one) whose sampling state is used.
    pub sampler: Option<crate::program::Src>,
    /// `tex.level`'s `lod`, or `tex.grad`'s `dPdx` elements followed by `dPdy`'s.
    pub lod: Vec<crate::program::Src>,
}

/// `tex`'s mipmap mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LodMode {
    /// `.base` or none: level 0.
    Base,
    /// `.level`: an explicit LOD.
    Level,
    /// `.grad`: the LOD of two partials.
    Grad,
}

/// How `tex` returns its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexOut {
    /// Four 32-bit values (`.u32`, `.s32`, `.f32`).
    Word,
    /// Four `.f16` values.
    F16,
    /// Two `.f16x2` pairs.
    F16x2,
}

/// The operation of a [`TexInst`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TexOp {
    Tex {
        geom: Geom,
        int_coords: bool,
        out: TexOut,
        /// `.2dms`/`.a2dms`: `data[0]` is the sample number.
        ms: bool,
        /// Depth compare: `data[0]` is the reference value.
        cmp: bool,
        /// The mipmap mode (its operands are `lod`).
        lod: LodMode,
    },
    Tld4 {
        geom: Geom,
        comp: u8,
        /// Depth compare: `data[0]` is the reference value.
        cmp: bool,
    },
    Txq {
        q: Query,
        level: bool,
    },
    Suq(Query),
    /// `suld.b`: `n` elements of `size` bytes.
    Suld {
        geom: Geom,
        size: u32,
        oob: Oob,
    },
    /// `sust.b` (`formatted`: `sust.p`).
    Sust {
        geom: Geom,
        size: u32,
        formatted: bool,
        oob: Oob,
    },
    Sured {
        geom: Geom,
        op: crate::program::AtomOp,
        ty: ptxvm_ir::types::Type,
        formatted: bool,
        oob: Oob,
    },
    /// `istypep`: 0 `.texref`, 1 `.samplerref`, 2 `.surfref`.
    Istypep(u8),
}

impl TexInst {
    /// Every register the instruction names.
    pub fn each_reg(&self, visit: &mut dyn FnMut(u32)) {
        use crate::program::{Dst, Src};
        let mut s = |x: &Src| {
            if let Src::Reg(r) | Src::Pred(r, _) = x {
                visit(*r);
            }
        };
        s(&self.handle);
        self.sampler.iter().for_each(&mut s);
        self.coords.iter().for_each(&mut s);
        self.offs.iter().for_each(&mut s);
        self.data.iter().for_each(&mut s);
        self.lod.iter().for_each(&mut s);
        for d in self.ds.iter().chain(&self.resident) {
            if let Dst::Reg(r) = d {
                visit(*r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lay1(n: u64) -> Layout {
        Layout::packed(0, Elem::F32, 1, Geom::D1, n, 1, 1, 1).unwrap()
    }

    fn reader(vals: Vec<f32>) -> impl FnMut(u64, &mut [u8]) -> Result<(), String> {
        move |a, b| {
            let v = vals.get((a / 4) as usize).ok_or("out")?;
            b.copy_from_slice(&v.to_le_bytes()[..b.len()]);
            Ok(())
        }
    }

    #[test]
    fn linear_1d_uses_9_bit_weights() {
        let lay = lay1(2);
        let s = Sampler {
            filter: Filter::Linear,
            ..Sampler::default()
        };
        let mut r = reader(vec![0.0, 1.0]);
        // u = 0.9 → u_B = 0.4 → k = floor(102.4 + 0.5) = 102 → 102/256.
        let v = sample(&lay, &s, 0, [0.9, 0.0, 0.0], [0; 3], None, &mut r).unwrap();
        assert_eq!(f32::from_bits(v[0]), 102.0 / 256.0);
        assert_eq!(f32::from_bits(v[3]), 1.0);
    }

    #[test]
    fn address_modes() {
        assert_eq!(address(-1, 4, AddrMode::Clamp, true), Some(0));
        assert_eq!(address(5, 4, AddrMode::Wrap, true), Some(1));
        assert_eq!(address(5, 4, AddrMode::Mirror, true), Some(2));
        assert_eq!(address(-1, 4, AddrMode::Mirror, true), Some(0));
        assert_eq!(address(4, 4, AddrMode::Border, true), None);
        assert_eq!(address(5, 4, AddrMode::Wrap, false), Some(3));
    }

    #[test]
    fn surface_modes() {
        let lay = Layout::packed(0x1000, Elem::U32, 1, Geom::D2, 4, 2, 1, 1).unwrap();
        assert_eq!(
            surf_addr(&lay, 0, [4, 1, 0], true, 4, Oob::Trap),
            Ok(0x1000 + 16 + 4)
        );
        assert!(matches!(
            surf_addr(&lay, 0, [16, 0, 0], true, 4, Oob::Trap),
            Err(SurfMiss::Fault(_))
        ));
        assert_eq!(
            surf_addr(&lay, 0, [16, 0, 0], true, 4, Oob::Zero),
            Err(SurfMiss::Zero)
        );
        assert_eq!(
            surf_addr(&lay, 0, [100, 9, 0], true, 4, Oob::Clamp),
            Ok(0x1000 + 16 + 12)
        );
        assert_eq!(
            surf_addr(&lay, 0, [-8, -1, 0], true, 4, Oob::Clamp),
            Ok(0x1000)
        );
        assert!(surf_addr(&lay, 0, [i32::MIN, i32::MAX, 0], true, 16, Oob::Trap).is_err());
    }

    #[test]
    fn mip_chain_levels() {
        // 5x3 f32 with 3 levels: 5x3 (15 texels), 2x1 (2), 1x1 (1).
        let l = Layout::packed(0x100, Elem::F32, 1, Geom::D2, 5, 3, 1, 1)
            .unwrap()
            .with_levels(3);
        assert!(l.validate().is_ok());
        let l1 = l.level(1).unwrap();
        assert_eq!(
            (l1.base, l1.width, l1.height, l1.levels),
            (0x100 + 60, 2, 1, 1)
        );
        let l2 = l.level(2).unwrap();
        assert_eq!((l2.base, l2.width, l2.height), (0x100 + 68, 1, 1));
        assert_eq!(l.span(), Some(72));
        assert!(l.level(3).is_none());
        assert_eq!(max_levels(5), 3);
        assert_eq!(max_levels(1), 1);
        assert_eq!(max_levels(1 << 31), 32);
        assert!(l.with_levels(4).validate().is_err());
        assert!(l.with_levels(0).validate().is_err());
        assert_eq!(query(&l, None, Query::NumMipmapLevels, 0), 3);
    }

    #[test]
    fn level_selection() {
        let l = Layout::packed(0, Elem::F32, 1, Geom::D2, 16, 16, 1, 1)
            .unwrap()
            .with_levels(5);
        let mut s = Sampler {
            normalized: true,
            ..Sampler::default()
        };
        let c = [0.5; 3];
        let sel = |s: &Sampler, lod| select_level(&l, s, c, lod, true);
        assert_eq!(sel(&s, Lod::Base), (0, 0));
        // Point: nearest, a tie to the lower level.
        assert_eq!(sel(&s, Lod::Level(1.5)), (1, 0));
        assert_eq!(sel(&s, Lod::Level(1.51)), (2, 0));
        assert_eq!(sel(&s, Lod::Level(9.0)), (4, 0));
        assert_eq!(sel(&s, Lod::Level(f32::NAN)), (0, 0));
        assert_eq!(sel(&s, Lod::Index(-3)), (0, 0));
        assert_eq!(sel(&s, Lod::Index(3)), (3, 0));
        s.mip_filter = Filter::Linear;
        // 1.3 → q = floor(332.8 + 0.5) = 333 → level 1, k = 77.
        assert_eq!(sel(&s, Lod::Level(1.3)), (1, 77));
        assert_eq!(sel(&s, Lod::Level(4.0)), (4, 0));
        s.lod_bias = 0.5;
        s.max_lod = 1.25;
        assert_eq!(sel(&s, Lod::Level(0.5)), (1, 0));
        assert_eq!(sel(&s, Lod::Level(2.0)), (1, 64));
        // Gradients: |(0.25, 0)·16| = 4 → λ = 2 (bias 0.5, clamp 1.25 → k = 64).
        assert_eq!(
            sel(&s, Lod::Grad([0.25, 0.0, 0.0], [0.0, 0.0625, 0.0])),
            (1, 64)
        );
        s.lod_bias = 0.0;
        s.max_lod = f32::INFINITY;
        assert_eq!(
            sel(&s, Lod::Grad([0.25, 0.0, 0.0], [0.0, 0.0625, 0.0])),
            (2, 0)
        );
        // A zero gradient is level 0.
        assert_eq!(sel(&s, Lod::Grad([0.0; 3], [0.0; 3])), (0, 0));
    }

    #[test]
    fn linear_mip_blend() {
        // 1D, 4 texels of 1.0 then 2 texels of 3.0 (level 1) and 1 of 7.0 (level 2).
        let l = lay1(4).with_levels(3);
        let s = Sampler {
            normalized: true,
            mip_filter: Filter::Linear,
            ..Sampler::default()
        };
        let mut r = reader(vec![1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 7.0]);
        let at = |lod, r: &mut Read| {
            let v = lookup(
                &l,
                &s,
                0,
                [0.3f32.to_bits(), 0, 0],
                [0; 3],
                false,
                None,
                lod,
                r,
            );
            f32::from_bits(v.unwrap()[0])
        };
        assert_eq!(at(Lod::Level(0.25), &mut r), 0.75 + 0.25 * 3.0);
        assert_eq!(at(Lod::Level(1.5), &mut r), 5.0);
        assert_eq!(at(Lod::Level(2.0), &mut r), 7.0);
        assert_eq!(at(Lod::Base, &mut r), 1.0);
    }
}
