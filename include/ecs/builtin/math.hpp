/**
 * @file ecs/builtin/math.hpp
 * @brief Vec2, Vec3 and Quat: the small vector math the builtin transforms need.
 *
 * Plain data: standard-layout, trivially copyable aggregates of floats, laid out like glm::vec2 /
 * glm::vec3 / glm::quat (x, y, z, w: glm's default order) and DirectXMath's XMFLOAT2 / XMFLOAT3 /
 * XMFLOAT4, so arrays of them can be handed to those libraries (or a GPU) by pointer. A default
 * Vec is zero, a default Quat the identity {0, 0, 0, 1}.
 *
 * Conventions (those of Mat4 in builtin/transform.hpp): right-handed, angles in radians. A unit
 * quaternion q rotates v as q v q*; `a * b` composes: `(a * b).rotate(v) == a.rotate(b.rotate(v))`
 * (b first), like `Mat4::rotation(a) * Mat4::rotation(b)`.
 *
 * g++ and clang++ get sqrtf/sinf/cosf as builtins, sparing every translation unit the parse of
 * <cmath>; other compilers include it.
 */
#pragma once

#if !defined(__GNUC__) && !defined(__clang__)
#    include <cmath>
#endif

namespace ecs {

namespace detail {
#if defined(__GNUC__) || defined(__clang__)
inline float sin_f(float x) noexcept {
    return __builtin_sinf(x);
}
inline float cos_f(float x) noexcept {
    return __builtin_cosf(x);
}
inline float sqrt_f(float x) noexcept {
    return __builtin_sqrtf(x);
}
#else
inline float sin_f(float x) noexcept {
    return std::sin(x);
}
inline float cos_f(float x) noexcept {
    return std::cos(x);
}
inline float sqrt_f(float x) noexcept {
    return std::sqrt(x);
}
#endif
} // namespace detail

/// @brief A 2-component float vector.
struct Vec2 {
    float x = 0.0f;
    float y = 0.0f;

    /// @brief Euclidean length.
    [[nodiscard]] float length() const noexcept { return detail::sqrt_f(x * x + y * y); }
    /// @brief This vector scaled to length 1; a zero vector stays zero.
    [[nodiscard]] Vec2 normalized() const noexcept {
        const float l = length();
        return l > 0.0f ? Vec2{x / l, y / l} : *this;
    }

    constexpr Vec2& operator+=(const Vec2& b) noexcept { return x += b.x, y += b.y, *this; }
    constexpr Vec2& operator-=(const Vec2& b) noexcept { return x -= b.x, y -= b.y, *this; }
    constexpr Vec2& operator*=(float s) noexcept { return x *= s, y *= s, *this; }
    [[nodiscard]] friend constexpr Vec2 operator+(const Vec2& a, const Vec2& b) noexcept {
        return Vec2{a.x + b.x, a.y + b.y};
    }
    [[nodiscard]] friend constexpr Vec2 operator-(const Vec2& a, const Vec2& b) noexcept {
        return Vec2{a.x - b.x, a.y - b.y};
    }
    [[nodiscard]] friend constexpr Vec2 operator-(const Vec2& a) noexcept { return Vec2{-a.x, -a.y}; }
    [[nodiscard]] friend constexpr Vec2 operator*(const Vec2& a, float s) noexcept { return Vec2{a.x * s, a.y * s}; }
    [[nodiscard]] friend constexpr Vec2 operator*(float s, const Vec2& a) noexcept { return Vec2{a.x * s, a.y * s}; }
    [[nodiscard]] friend constexpr Vec2 operator/(const Vec2& a, float s) noexcept { return Vec2{a.x / s, a.y / s}; }
    [[nodiscard]] friend constexpr bool operator==(const Vec2& a, const Vec2& b) noexcept {
        return a.x == b.x && a.y == b.y;
    }
    [[nodiscard]] friend constexpr bool operator!=(const Vec2& a, const Vec2& b) noexcept { return !(a == b); }
};

/// @brief A 3-component float vector: a point or a direction.
struct Vec3 {
    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;

    /// @brief Euclidean length.
    [[nodiscard]] float length() const noexcept { return detail::sqrt_f(x * x + y * y + z * z); }
    /// @brief This vector scaled to length 1; a zero vector stays zero.
    [[nodiscard]] Vec3 normalized() const noexcept {
        const float l = length();
        return l > 0.0f ? Vec3{x / l, y / l, z / l} : *this;
    }

    constexpr Vec3& operator+=(const Vec3& b) noexcept { return x += b.x, y += b.y, z += b.z, *this; }
    constexpr Vec3& operator-=(const Vec3& b) noexcept { return x -= b.x, y -= b.y, z -= b.z, *this; }
    constexpr Vec3& operator*=(float s) noexcept { return x *= s, y *= s, z *= s, *this; }
    [[nodiscard]] friend constexpr Vec3 operator+(const Vec3& a, const Vec3& b) noexcept {
        return Vec3{a.x + b.x, a.y + b.y, a.z + b.z};
    }
    [[nodiscard]] friend constexpr Vec3 operator-(const Vec3& a, const Vec3& b) noexcept {
        return Vec3{a.x - b.x, a.y - b.y, a.z - b.z};
    }
    [[nodiscard]] friend constexpr Vec3 operator-(const Vec3& a) noexcept { return Vec3{-a.x, -a.y, -a.z}; }
    [[nodiscard]] friend constexpr Vec3 operator*(const Vec3& a, float s) noexcept {
        return Vec3{a.x * s, a.y * s, a.z * s};
    }
    [[nodiscard]] friend constexpr Vec3 operator*(float s, const Vec3& a) noexcept {
        return Vec3{a.x * s, a.y * s, a.z * s};
    }
    [[nodiscard]] friend constexpr Vec3 operator/(const Vec3& a, float s) noexcept {
        return Vec3{a.x / s, a.y / s, a.z / s};
    }
    [[nodiscard]] friend constexpr bool operator==(const Vec3& a, const Vec3& b) noexcept {
        return a.x == b.x && a.y == b.y && a.z == b.z;
    }
    [[nodiscard]] friend constexpr bool operator!=(const Vec3& a, const Vec3& b) noexcept { return !(a == b); }
};

/// @brief Dot product.
[[nodiscard]] constexpr float dot(const Vec2& a, const Vec2& b) noexcept {
    return a.x * b.x + a.y * b.y;
}
/// @brief Dot product.
[[nodiscard]] constexpr float dot(const Vec3& a, const Vec3& b) noexcept {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
/// @brief Cross product (right-handed: cross(x, y) == z).
[[nodiscard]] constexpr Vec3 cross(const Vec3& a, const Vec3& b) noexcept {
    return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
/// @brief Same as `v.length()`.
[[nodiscard]] inline float length(const Vec2& v) noexcept {
    return v.length();
}
/// @brief Same as `v.length()`.
[[nodiscard]] inline float length(const Vec3& v) noexcept {
    return v.length();
}
/// @brief Same as `v.normalized()`.
[[nodiscard]] inline Vec2 normalized(const Vec2& v) noexcept {
    return v.normalized();
}
/// @brief Same as `v.normalized()`.
[[nodiscard]] inline Vec3 normalized(const Vec3& v) noexcept {
    return v.normalized();
}

/**
 * @brief A rotation as a quaternion x i + y j + z k + w (x, y, z, w in memory). Default: the identity.
 *
 * Rotations are unit quaternions; from_axis_angle() makes one, products of unit quaternions stay
 * (nearly) unit, normalized() removes the drift of long chains of products.
 */
struct Quat {
    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;
    float w = 1.0f;

    /// @brief The identity rotation {0, 0, 0, 1}.
    [[nodiscard]] static constexpr Quat identity() noexcept { return Quat{}; }

    /**
     * @brief Rotation by `radians` about `axis` (right-handed: about z, x turns towards y).
     * `axis` need not have length 1; a zero axis gives the identity.
     */
    [[nodiscard]] static Quat from_axis_angle(const Vec3& axis, float radians) noexcept {
        const float l = axis.length();
        if (!(l > 0.0f)) return Quat{};
        const float s = detail::sin_f(radians * 0.5f) / l;
        return Quat{axis.x * s, axis.y * s, axis.z * s, detail::cos_f(radians * 0.5f)};
    }

    /// @brief Length of the 4-vector (1 for a rotation).
    [[nodiscard]] float length() const noexcept { return detail::sqrt_f(x * x + y * y + z * z + w * w); }
    /// @brief This quaternion scaled to length 1; a zero quaternion gives the identity.
    [[nodiscard]] Quat normalized() const noexcept {
        const float l = length();
        return l > 0.0f ? Quat{x / l, y / l, z / l, w / l} : Quat{};
    }
    /// @brief The conjugate {-x, -y, -z, w}: the inverse rotation of a unit quaternion.
    [[nodiscard]] constexpr Quat conjugate() const noexcept { return Quat{-x, -y, -z, w}; }

    /// @brief `v` rotated by this (unit) quaternion: q v q*.
    [[nodiscard]] constexpr Vec3 rotate(const Vec3& v) const noexcept {
        const Vec3 u{x, y, z};
        const Vec3 t = 2.0f * cross(u, v);
        return v + w * t + cross(u, t);
    }

    /// @brief The Hamilton product: `b` first, then `a`.
    [[nodiscard]] friend constexpr Quat operator*(const Quat& a, const Quat& b) noexcept {
        return Quat{a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, //
                    a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, //
                    a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, //
                    a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    }
    constexpr Quat& operator*=(const Quat& b) noexcept { return *this = *this * b; }
    [[nodiscard]] friend constexpr bool operator==(const Quat& a, const Quat& b) noexcept {
        return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
    }
    [[nodiscard]] friend constexpr bool operator!=(const Quat& a, const Quat& b) noexcept { return !(a == b); }
};

/// @brief Dot product of the 4-vectors.
[[nodiscard]] constexpr float dot(const Quat& a, const Quat& b) noexcept {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
/// @brief Same as `q.length()`.
[[nodiscard]] inline float length(const Quat& q) noexcept {
    return q.length();
}
/// @brief Same as `q.normalized()`.
[[nodiscard]] inline Quat normalized(const Quat& q) noexcept {
    return q.normalized();
}

} // namespace ecs
