// Writes a small dataset with every field type (two runs, moves and destroys) and, beside it,
// expected.json: every row the dataset must hold, as the world's own values. check_dataset.mjs reads
// the dataset with DuckDB and hyparquet and compares. Usage: ecs_columnar_dataset <folder>
int main() { return 0; }
