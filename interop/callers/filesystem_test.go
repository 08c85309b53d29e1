package callers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/interop/callers/gen/filesystem"
)

// TestFilesystem calls every tool of @modelcontextprotocol/server-filesystem
// inside its allowed directory.
func TestFilesystem(t *testing.T) {
	c := filesystem.NewCaller(connect(t, "filesystem"))
	root, _ := filepath.EvalSymlinks(fsRoot)
	p := func(name string) string { return filepath.Join(root, name) }
	if _, err := c.ListAllowedDirectories(ctx(t), &filesystem.ListAllowedDirectoriesArgs{}); err != nil {
		t.Errorf("list_allowed_directories: %v", err)
	}
	if _, err := c.CreateDirectory(ctx(t), &filesystem.CreateDirectoryArgs{Path: p("d")}); err != nil {
		t.Fatalf("create_directory: %v", err)
	}
	if _, err := c.WriteFile(ctx(t), &filesystem.WriteFileArgs{Path: p("d/a.txt"), Content: "one\ntwo\nthree\n"}); err != nil {
		t.Fatalf("write_file: %v", err)
	}
	os.WriteFile(p("d/b.png"), []byte("\x89PNG\r\n\x1a\n"), 0o644)
	r, err := c.ReadTextFile(ctx(t), &filesystem.ReadTextFileArgs{Path: p("d/a.txt"), Head: ptr(1.0)})
	if err != nil || strings.TrimSpace(r.Content) != "one" {
		t.Errorf("read_text_file head 1: %+v %v", r, err)
	}
	if r, err := c.ReadFile(ctx(t), &filesystem.ReadFileArgs{Path: p("d/a.txt")}); err != nil || !strings.Contains(r.Content, "three") {
		t.Errorf("read_file: %+v %v", r, err)
	}
	if _, err := c.ReadMediaFile(ctx(t), &filesystem.ReadMediaFileArgs{Path: p("d/b.png")}); err != nil {
		t.Errorf("read_media_file: %v", err)
	}
	if _, err := c.ReadMultipleFiles(ctx(t), &filesystem.ReadMultipleFilesArgs{Paths: []string{p("d/a.txt"), p("d/b.png")}}); err != nil {
		t.Errorf("read_multiple_files: %v", err)
	}
	if _, err := c.EditFile(ctx(t), &filesystem.EditFileArgs{Path: p("d/a.txt"), Edits: []filesystem.EditFileArgsEditsItem{{OldText: "two", NewText: "2"}}}); err != nil {
		t.Errorf("edit_file: %v", err)
	}
	if r, err := c.ListDirectory(ctx(t), &filesystem.ListDirectoryArgs{Path: p("d")}); err != nil || !strings.Contains(r.Content, "a.txt") {
		t.Errorf("list_directory: %+v %v", r, err)
	}
	if _, err := c.ListDirectoryWithSizes(ctx(t), &filesystem.ListDirectoryWithSizesArgs{Path: p("d"), SortBy: ptr(filesystem.ListDirectoryWithSizesArgsSortBySize)}); err != nil {
		t.Errorf("list_directory_with_sizes: %v", err)
	}
	if _, err := c.DirectoryTree(ctx(t), &filesystem.DirectoryTreeArgs{Path: root, ExcludePatterns: []string{"*.png"}}); err != nil {
		t.Errorf("directory_tree: %v", err)
	}
	if _, err := c.MoveFile(ctx(t), &filesystem.MoveFileArgs{Source: p("d/a.txt"), Destination: p("d/c.txt")}); err != nil {
		t.Errorf("move_file: %v", err)
	}
	if r, err := c.SearchFiles(ctx(t), &filesystem.SearchFilesArgs{Path: root, Pattern: "**/c.txt"}); err != nil || !strings.Contains(r.Content, "c.txt") {
		t.Errorf("search_files: %+v %v", r, err)
	}
	if _, err := c.GetFileInfo(ctx(t), &filesystem.GetFileInfoArgs{Path: p("d/c.txt")}); err != nil {
		t.Errorf("get_file_info: %v", err)
	}
	// Rejected: a path outside the allowed directory, and a sortBy the
	// schema does not allow.
	_, err = c.ReadTextFile(ctx(t), &filesystem.ReadTextFileArgs{Path: "/etc/hostname"})
	rejected(t, "read_text_file outside the root", err, new(*filesystem.ExecutionError))
	_, err = c.ListDirectoryWithSizes(ctx(t), &filesystem.ListDirectoryWithSizesArgs{Path: p("d"), SortBy: ptr(filesystem.ListDirectoryWithSizesArgsSortBy("date"))})
	rejected(t, "list_directory_with_sizes sortBy date", err, new(*filesystem.ExecutionError))
}
