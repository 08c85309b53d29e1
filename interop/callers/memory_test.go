package callers

import (
	"testing"

	"github.com/mcpgen/mcpgen/interop/callers/gen/memory"
)

// TestMemory calls every tool of @modelcontextprotocol/server-memory (all
// with output schemas, so every result is typed and validated).
func TestMemory(t *testing.T) {
	c := memory.NewCaller(connect(t, "memory"))
	ents, err := c.CreateEntities(ctx(t), &memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesArgsEntitiesItem{
		{Name: "gopher", EntityType: "animal", Observations: []string{"digs"}},
		{Name: "go", EntityType: "language", Observations: []string{}},
	}})
	if err != nil || len(ents.Entities) != 2 {
		t.Fatalf("create_entities: %+v %v", ents, err)
	}
	if r, err := c.CreateRelations(ctx(t), &memory.CreateRelationsArgs{Relations: []memory.CreateRelationsArgsRelationsItem{{From: "gopher", To: "go", RelationType: "mascot_of"}}}); err != nil || len(r.Relations) != 1 {
		t.Errorf("create_relations: %+v %v", r, err)
	}
	if r, err := c.AddObservations(ctx(t), &memory.AddObservationsArgs{Observations: []memory.AddObservationsArgsObservationsItem{{EntityName: "gopher", Contents: []string{"blue"}}}}); err != nil || len(r.Results) != 1 {
		t.Errorf("add_observations: %+v %v", r, err)
	}
	g, err := c.ReadGraph(ctx(t), &memory.ReadGraphArgs{})
	if err != nil || len(g.Entities) < 2 || len(g.Relations) < 1 {
		t.Errorf("read_graph: %+v %v", g, err)
	}
	if r, err := c.SearchNodes(ctx(t), &memory.SearchNodesArgs{Query: "blue"}); err != nil || len(r.Entities) != 1 {
		t.Errorf("search_nodes: %+v %v", r, err)
	}
	if r, err := c.OpenNodes(ctx(t), &memory.OpenNodesArgs{Names: []string{"go"}}); err != nil || len(r.Entities) != 1 {
		t.Errorf("open_nodes: %+v %v", r, err)
	}
	if _, err := c.DeleteObservations(ctx(t), &memory.DeleteObservationsArgs{Deletions: []memory.DeleteObservationsArgsDeletionsItem{{EntityName: "gopher", Observations: []string{"blue"}}}}); err != nil {
		t.Errorf("delete_observations: %v", err)
	}
	if _, err := c.DeleteRelations(ctx(t), &memory.DeleteRelationsArgs{Relations: []memory.DeleteRelationsArgsRelationsItem{{From: "gopher", To: "go", RelationType: "mascot_of"}}}); err != nil {
		t.Errorf("delete_relations: %v", err)
	}
	if _, err := c.DeleteEntities(ctx(t), &memory.DeleteEntitiesArgs{EntityNames: []string{"gopher", "go"}}); err != nil {
		t.Errorf("delete_entities: %v", err)
	}
	// Rejected: observations for an entity that does not exist.
	_, err = c.AddObservations(ctx(t), &memory.AddObservationsArgs{Observations: []memory.AddObservationsArgsObservationsItem{{EntityName: "nobody", Contents: []string{"x"}}}})
	rejected(t, "add_observations to a missing entity", err, new(*memory.ExecutionError))
	// Rejected by the schema: entities must be an array, and nil encodes as null.
	_, err = c.CreateEntities(ctx(t), &memory.CreateEntitiesArgs{})
	rejected(t, "create_entities with entities null", err, new(*memory.ExecutionError))
}
