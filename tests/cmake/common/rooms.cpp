// The optional rooms through an installed package: ecs::columnar and ecs::parquet always, and
// ecs::remote when the consumer's machine has cpp-httplib (ECS_CONSUMER_REMOTE).
#include <ecs/columnar.hpp>
#include <ecs/parquet.hpp>
#ifdef ECS_CONSUMER_REMOTE
#include <ecs/remote.hpp>
#endif

struct Pos {
    float x, y;
};
ECS_REFLECT(Pos, x, y)

int main() {
    ecs::World world;
    (void)world.create_with(Pos{1, 2});
    ecs::RecorderOptions options;
    (void)options;
    int tables = 0;
    for (uint32_t id = 0; id < world.archetype_count(); ++id) {
        const ecs::TableSchema schema = ecs::table_schema(world, id);
        tables += schema && schema.columns.size() == ecs::ROW_COLUMNS + 2 ? 1 : 0;
    }
#ifdef ECS_CONSUMER_REMOTE
    ecs::RemoteServer* server = nullptr;
    (void)server;
#endif
    return tables == 1 ? 0 : 1;
}
