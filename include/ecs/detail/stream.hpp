/**
 * @file ecs/detail/stream.hpp
 * @brief The standard streams as the snapshot room names them, without parsing <istream>, <ostream>
 *        or <streambuf>.
 *
 * Internal. Every translation unit that includes <ecs/ecs.hpp> would otherwise parse them (<istream>
 * and <ostream> about 0.04 s each, <streambuf> with ios_base and the locale classes about 0.02 s).
 * The snapshot code is made of templates: it names a stream, a stream buffer or std::ios_base through
 * `Dependent<D, ...>` (its own buffers derive from `Dependent<D, std::streambuf>`), so their uses are
 * checked where the template is instantiated. A caller holds a stream object there, so the header
 * that declares its type is included.
 */
#pragma once

#include <iosfwd>

#include "dependent.hpp"

