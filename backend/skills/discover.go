package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// root is one folder skills are found in.
type root struct {
	Dir    string
	Source Source
}

// roots are the folders searched, in the order a name is looked up: the data directory's
// skills/, the user's folders (one a line), then the other agents' folders.
func roots(dataDir, home, folders string, otherAgents bool) []root {
	out := []root{{Dir: filepath.Join(dataDir, "skills"), Source: SourceData}}
	for _, line := range strings.Split(folders, "\n") {
		if d := strings.TrimSpace(line); d != "" && filepath.IsAbs(d) {
			out = append(out, root{Dir: filepath.Clean(d), Source: SourceFolder})
		}
	}
	if otherAgents && home != "" {
		out = append(out, root{Dir: filepath.Join(home, ".claude", "skills"), Source: SourceClaude},
			root{Dir: filepath.Join(home, ".agents", "skills"), Source: SourceAgents})
	}
	return out
}

// skillDirs are the skill folders of a root: the root itself when it holds SKILL.md (a
// folder the user added may be one skill), else its subfolders that hold one. A folder
// may be a symbolic link (other agents link skills in from where they are kept); hidden
// folders are skipped (imports are unpacked in one).
func skillDirs(r root) []string {
	if isFile(filepath.Join(r.Dir, FileName)) {
		return []string{r.Dir}
	}
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(r.Dir, e.Name())
		if st, err := os.Stat(dir); err == nil && st.IsDir() && exists(filepath.Join(dir, FileName)) {
			out = append(out, dir)
		}
	}
	return out
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// discover reads every skill of the roots. The first skill of a name is the one used;
// a later one is listed as shadowed by it.
func discover(rs []root) []Skill {
	var out []Skill
	first := map[string]string{}
	seenDir := map[string]bool{}
	for _, r := range rs {
		for _, dir := range skillDirs(r) {
			if seenDir[dir] {
				continue
			}
			seenDir[dir] = true
			sk := readSkill(dir, r.Source, r.Dir)
			if sk.Error == "" {
				if prev, ok := first[sk.Name]; ok {
					sk.ShadowedBy = prev
				} else {
					first[sk.Name] = dir
				}
			}
			out = append(out, sk)
		}
	}
	return out
}

// signature is what the watcher compares: every root's skill folders and each SKILL.md's
// size and modification time. Resources are read when asked, so they need no watching.
func signature(rs []root) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Dir)
		b.WriteByte('\n')
		dirs := skillDirs(r)
		slices.Sort(dirs)
		for _, d := range dirs {
			st, err := os.Stat(filepath.Join(d, FileName))
			if err != nil {
				b.WriteString(d + " ?\n")
				continue
			}
			fmt.Fprintf(&b, "%s %d %d\n", d, st.ModTime().UnixNano(), st.Size())
		}
	}
	return b.String()
}
