/**
 * @file ecs/runtime.hpp
 * @brief Runtime components and untyped access: the runtime component types (runtime_types.hpp)
 *        together with the World that reaches every component by id or by name (world/raw.hpp).
 */
#pragma once

#include "runtime_types.hpp"
#include "world.hpp"
