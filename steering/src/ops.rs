//! Deterministic float functions.
//!
//! `sqrt` and the basic arithmetic are exactly rounded by IEEE 754 on every platform, but the
//! transcendental functions (`sin`, `cos`, `atan2`, ...) are not: the standard library calls the
//! platform's C library, whose results differ in the last bits between systems. Lockstep
//! multiplayer needs bit-identical simulation on every peer, so all of Cohort calls these
//! functions through this module. With the `libm` feature they come from the pure-Rust `libm`
//! crate and are identical everywhere; without it they use `std` (identical run to run on one
//! machine). `clippy.toml` forbids calling the `std` versions directly.
#![allow(clippy::disallowed_methods)]

use glam::Vec2;

macro_rules! unary {
    ($(#[$doc:meta])* $name:ident, $libm:ident) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(x: f32) -> f32 {
            #[cfg(feature = "libm")]
            {
                libm::$libm(x)
            }
            #[cfg(not(feature = "libm"))]
            {
                x.$name()
            }
        }
    };
}

unary!(
    /// Sine of `x` radians.
    sin, sinf
);
unary!(
    /// Cosine of `x` radians.
    cos, cosf
);
unary!(
    /// Arc cosine, in radians; NaN outside `[-1, 1]`, so clamp first.
    acos, acosf
);
unary!(
    /// `e` to the power `x`.
    exp, expf
);

/// Four-quadrant arc tangent of `y / x`, in radians.
#[inline]
pub fn atan2(y: f32, x: f32) -> f32 {
    #[cfg(feature = "libm")]
    {
        libm::atan2f(y, x)
    }
    #[cfg(not(feature = "libm"))]
    {
        y.atan2(x)
    }
}

/// `x` to the power `y`.
#[inline]
pub fn powf(x: f32, y: f32) -> f32 {
    #[cfg(feature = "libm")]
    {
        libm::powf(x, y)
    }
    #[cfg(not(feature = "libm"))]
    {
        x.powf(y)
    }
}

/// Sine and cosine of `x` radians.
#[inline]
pub fn sin_cos(x: f32) -> (f32, f32) {
    (sin(x), cos(x))
}

/// Unit vector at `angle` radians from the +x axis.
#[inline]
pub fn from_angle(angle: f32) -> Vec2 {
    let (s, c) = sin_cos(angle);
    Vec2::new(c, s)
}

/// Angle of `v` from the +x axis in `(-pi, pi]`; 0 for the zero vector.
#[inline]
pub fn to_angle(v: Vec2) -> f32 {
    atan2(v.y, v.x)
}

/// Signed angle from `a` to `b` in `(-pi, pi]`; 0 when either is zero.
#[inline]
pub fn angle_between(a: Vec2, b: Vec2) -> f32 {
    atan2(a.perp_dot(b), a.dot(b))
}

/// Whether `x` is above 0 and finite (false for NaN and infinities).
///
/// Written as `x * 0.0 == 0.0` (0 exactly for every finite `x`, NaN for the infinities and
/// NaN) rather than `x > 0.0 && x.is_finite()`, which LLVM turns into a branchy test of the
/// float's class, about 20 instructions: this one is a handful, without branches, and it is
/// on the hot path (every unit's mass, every penetration contact's radii).
#[inline]
pub fn positive_finite(x: f32) -> bool {
    x > 0.0 && x * 0.0 == 0.0
}

/// `x` when [`positive_finite`], else 0 (a radius, time or limit usable in arithmetic).
#[inline]
pub fn positive_or_zero(x: f32) -> f32 {
    if positive_finite(x) { x } else { 0.0 }
}

/// Wraps an angle to `(-pi, pi]`. Non-finite input gives 0.
#[inline]
pub fn wrap_angle(a: f32) -> f32 {
    use core::f32::consts::{PI, TAU};
    if !a.is_finite() {
        return 0.0;
    }
    let mut r = a % TAU;
    if r <= -PI {
        r += TAU;
    } else if r > PI {
        r -= TAU;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positive_finite_is_above_zero_and_finite() {
        let cases = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
        ];
        for x in cases {
            assert_eq!(positive_finite(x), x > 0.0 && x.is_finite(), "{x}");
            let sane = if x > 0.0 && x.is_finite() { x } else { 0.0 };
            assert_eq!(positive_or_zero(x).to_bits(), sane.to_bits(), "{x}");
        }
    }

    #[test]
    fn angles_round_trip() {
        for i in -7..=7 {
            let a = i as f32 * 0.4;
            let v = from_angle(a);
            assert!((wrap_angle(a) - to_angle(v)).abs() < 1e-5, "{a}");
        }
    }

    #[test]
    fn wrap_angle_range() {
        use core::f32::consts::PI;
        assert!((wrap_angle(3.0 * PI) - PI).abs() < 1e-5);
        assert!((wrap_angle(-3.5 * PI) - 0.5 * PI).abs() < 1e-5);
        assert_eq!(wrap_angle(f32::NAN), 0.0);
    }

    #[test]
    fn angle_between_sign() {
        assert!(angle_between(Vec2::X, Vec2::Y) > 0.0);
        assert!(angle_between(Vec2::Y, Vec2::X) < 0.0);
        assert_eq!(angle_between(Vec2::ZERO, Vec2::X), 0.0);
    }
}
