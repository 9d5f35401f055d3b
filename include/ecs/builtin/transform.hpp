/**
 * @file ecs/builtin/transform.hpp
 * @brief Mat4 (column-major 4x4 float matrix) and the LocalTransform / WorldTransform components;
 *        Vec2, Vec3 and Quat come from builtin/math.hpp.
 *
 * Ordinary components with no special status in the core: use them, or ignore them entirely.
 * LocalTransform is an entity's transform relative to its parent (or to the world origin when it
 * has no Parent); WorldTransform is the absolute transform written by propagate_transforms()
 * (builtin/transform_propagation.hpp). Both default to the identity.
 *
 * Conventions: column-major storage (element at row r, column c is `m[c * 4 + r]`), column vectors,
 * so `A * B` applied to a point applies B first, then A; the translation sits in m[12], m[13], m[14].
 * Rotations are right-handed, angles in radians.
 *
 * `Mat4::compose(position, rotation, scale)` builds T * R * S from a Vec3, a Quat and
 * a Vec3 (what an editor or a physics engine hands over); `translation(Vec3)`, `rotation(Quat)` and
 * `scale(Vec3)` are its factors.
 */
#pragma once

#include <cstddef>

#include "math.hpp"

namespace ecs {

/**
 * @brief Column-major 4x4 float matrix. A default-constructed Mat4 is the identity.
 *
 * An aggregate (with a default member initialiser) that is trivially copyable, so it is stored and
 * snapshotted with memcpy.
 */
struct Mat4 {
    float m[16] = {1.0f, 0.0f, 0.0f, 0.0f,  //
                   0.0f, 1.0f, 0.0f, 0.0f,  //
                   0.0f, 0.0f, 1.0f, 0.0f,  //
                   0.0f, 0.0f, 0.0f, 1.0f};

    /// @brief The identity matrix.
    [[nodiscard]] static constexpr Mat4 identity() noexcept { return Mat4{}; }

    /// @brief Translation by (x, y, z): m[12], m[13], m[14].
    [[nodiscard]] static constexpr Mat4 translation(float x, float y, float z) noexcept {
        Mat4 r;
        r.m[12] = x;
        r.m[13] = y;
        r.m[14] = z;
        return r;
    }

    /// @brief Non-uniform scale by (x, y, z) along the axes.
    [[nodiscard]] static constexpr Mat4 scale(float x, float y, float z) noexcept {
        Mat4 r;
        r.m[0] = x;
        r.m[5] = y;
        r.m[10] = z;
        return r;
    }

    /// @brief Translation by `t`.
    [[nodiscard]] static constexpr Mat4 translation(const Vec3& t) noexcept { return translation(t.x, t.y, t.z); }
    /// @brief Non-uniform scale by `s` along the axes.
    [[nodiscard]] static constexpr Mat4 scale(const Vec3& s) noexcept { return scale(s.x, s.y, s.z); }

    /// @brief The rotation of the unit quaternion `q` (normalize it first if it drifted).
    [[nodiscard]] static constexpr Mat4 rotation(const Quat& q) noexcept {
        return compose(Vec3{}, q, Vec3{1.0f, 1.0f, 1.0f});
    }

    /**
     * @brief `translation(position) * rotation(rotation) * scale(scale)`: applied to a
     *        point, scales, then rotates, then translates. Computed directly (no matrix products).
     * @param rotation a unit quaternion.
     */
    [[nodiscard]] static constexpr Mat4 compose(const Vec3& position, const Quat& rotation,
                                                const Vec3& scale) noexcept {
        const float x = rotation.x, y = rotation.y, z = rotation.z, w = rotation.w;
        const float xx = x * x, yy = y * y, zz = z * z;
        const float xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
        Mat4 r;
        r.m[0] = (1.0f - 2.0f * (yy + zz)) * scale.x; // column 0: the rotated x axis, times scale.x
        r.m[1] = 2.0f * (xy + wz) * scale.x;
        r.m[2] = 2.0f * (xz - wy) * scale.x;
        r.m[4] = 2.0f * (xy - wz) * scale.y; // column 1
        r.m[5] = (1.0f - 2.0f * (xx + zz)) * scale.y;
        r.m[6] = 2.0f * (yz + wx) * scale.y;
        r.m[8] = 2.0f * (xz + wy) * scale.z; // column 2
        r.m[9] = 2.0f * (yz - wx) * scale.z;
        r.m[10] = (1.0f - 2.0f * (xx + yy)) * scale.z;
        r.m[12] = position.x;
        r.m[13] = position.y;
        r.m[14] = position.z;
        return r;
    }

    /// @brief Rotation by `radians` about the X axis (Y turns towards Z).
    [[nodiscard]] static Mat4 rotation_x(float radians) noexcept {
        const float c = detail::cos_f(radians), s = detail::sin_f(radians);
        Mat4 r;
        r.m[5] = c;
        r.m[6] = s;
        r.m[9] = -s;
        r.m[10] = c;
        return r;
    }
    /// @brief Rotation by `radians` about the Y axis (Z turns towards X).
    [[nodiscard]] static Mat4 rotation_y(float radians) noexcept {
        const float c = detail::cos_f(radians), s = detail::sin_f(radians);
        Mat4 r;
        r.m[0] = c;
        r.m[2] = -s;
        r.m[8] = s;
        r.m[10] = c;
        return r;
    }
    /// @brief Rotation by `radians` about the Z axis (X turns towards Y).
    [[nodiscard]] static Mat4 rotation_z(float radians) noexcept {
        const float c = detail::cos_f(radians), s = detail::sin_f(radians);
        Mat4 r;
        r.m[0] = c;
        r.m[1] = s;
        r.m[4] = -s;
        r.m[5] = c;
        return r;
    }

    /// @brief Element at row `row`, column `col` (both 0..3).
    [[nodiscard]] constexpr float at(size_t row, size_t col) const noexcept { return m[col * 4 + row]; }

    /// @brief The product `*this * rhs`: applied to a point, `rhs` acts first.
    [[nodiscard]] constexpr Mat4 multiply(const Mat4& rhs) const noexcept {
        Mat4 r;
        for (size_t col = 0; col < 4; ++col) {
            const float b0 = rhs.m[col * 4 + 0], b1 = rhs.m[col * 4 + 1];
            const float b2 = rhs.m[col * 4 + 2], b3 = rhs.m[col * 4 + 3];
            for (size_t row = 0; row < 4; ++row)
                r.m[col * 4 + row] = m[0 + row] * b0 + m[4 + row] * b1 + m[8 + row] * b2 + m[12 + row] * b3;
        }
        return r;
    }
    /// @brief Same as multiply().
    [[nodiscard]] friend constexpr Mat4 operator*(const Mat4& lhs, const Mat4& rhs) noexcept {
        return lhs.multiply(rhs);
    }

    /// @brief The point `p` transformed (w = 1: translation applies). No perspective divide.
    [[nodiscard]] constexpr Vec3 transform_point(const Vec3& p) const noexcept {
        return Vec3{m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12],  //
                    m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],  //
                    m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]};
    }
    /// @brief The direction `v` transformed (w = 0: translation ignored).
    [[nodiscard]] constexpr Vec3 transform_vector(const Vec3& v) const noexcept {
        return Vec3{m[0] * v.x + m[4] * v.y + m[8] * v.z,  //
                    m[1] * v.x + m[5] * v.y + m[9] * v.z,  //
                    m[2] * v.x + m[6] * v.y + m[10] * v.z};
    }
    /// @brief The translation part (m[12], m[13], m[14]): where the origin ends up.
    [[nodiscard]] constexpr Vec3 position() const noexcept { return Vec3{m[12], m[13], m[14]}; }

    /// @brief Exact element-wise equality.
    [[nodiscard]] friend constexpr bool operator==(const Mat4& a, const Mat4& b) noexcept {
        for (size_t i = 0; i < 16; ++i)
            if (!(a.m[i] == b.m[i])) return false;
        return true;
    }
    [[nodiscard]] friend constexpr bool operator!=(const Mat4& a, const Mat4& b) noexcept { return !(a == b); }
};

/// @brief An entity's transform relative to its parent (or to the world origin without a Parent).
struct LocalTransform {
    Mat4 matrix; ///< identity by default
};

/// @brief An entity's absolute transform, written by propagate_transforms().
struct WorldTransform {
    Mat4 matrix; ///< identity by default
};

} // namespace ecs
