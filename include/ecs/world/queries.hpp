#pragma once
#include "world_class.hpp"
