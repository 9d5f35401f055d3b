/**
 * @file ecs/ecs.hpp
 * @brief Convenience header: includes every public header of the library.
 */
#pragma once

#include "config.hpp"
#include "entity.hpp"
#include "component.hpp"
#include "enable.hpp"
#include "sparse.hpp"
#include "archetype.hpp"
#include "world.hpp"
#include "relation.hpp"
#include "runtime.hpp"
#include "events.hpp"
#include "command_buffer.hpp"
#include "prefab.hpp"
#include "serialization.hpp"
#include "rollback.hpp"
#include "system.hpp"
#include "reflect.hpp"
#include "inspect.hpp"
#include "builtin/transform.hpp"
#include "builtin/hierarchy.hpp"
#include "builtin/hierarchy_ops.hpp"
#include "builtin/transform_propagation.hpp"
