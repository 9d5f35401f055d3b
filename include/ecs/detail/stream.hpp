/**
 * @file ecs/detail/stream.hpp
 * @brief The standard streams as the snapshot room names them, without parsing <istream> and <ostream>.
 *
 * Internal. Every translation unit that includes <ecs/ecs.hpp> would otherwise parse <istream> and
 * <ostream> (about 0.04 s each time). The snapshot code is made of templates: it names a stream through
 * `Dependent<D, std::istream>`, so its member calls are checked where the template is instantiated.
 * A caller holds a stream object there, so the header that declares its type is included.
 */
#pragma once

#include <iosfwd>

#include "dependent.hpp"

