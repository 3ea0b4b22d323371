// Command pulumi-language-nodejs is Stackwright's Node.js language host for the Pulumi engine.
//
// Why our own: the engine starts a language host to run a program, and Pulumi publishes the
// Node.js one only as an untagged Go module that the module proxy here does not serve. The
// protocol is small and stable (pulumirpc.LanguageRuntime), so we implement the part the engine
// uses for `preview`, `up`, `refresh` and `destroy` of an already-installed Node.js project:
// Run starts `node <@pulumi/pulumi>/cmd/run` with the program, exactly as Pulumi's own host does,
// and the SDK inside the project does everything else. Plugin discovery answers "none needed":
// our resources are dynamic providers, served by pulumi-resource-pulumi-nodejs from PATH.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// version is stamped at build time (-X main.version=...) to the Pulumi release it was built with.
var version = "0.0.0-dev"

// engineHealthInterval is how often the host asks whether the engine is still there. An engine
// killed with SIGKILL cannot stop its plugins; without this check the host and the program it
// runs would live on as orphans.
const engineHealthInterval = 15 * time.Second

// exitAfterUserActionableMessage is the code the SDK's cmd/run exits with once it has already
// printed the error to the user; the engine is then told to bail without printing another one.
const exitAfterUserActionableMessage = 32

func main() {
	engineAddress, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: %v\n", err)
		os.Exit(2)
	}
	host := &nodeHost{engineAddress: engineAddress}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := rpcutil.Healthcheck(ctx, engineAddress, engineHealthInterval, cancel); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: cannot watch the engine at %s: %v\n", engineAddress, err)
		os.Exit(1)
	}
	stop := make(chan bool)
	go func() {
		<-ctx.Done()
		host.killAll()
		close(stop)
	}()

	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(s *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(s, host)
			return nil
		},
		Cancel:  stop,
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: could not start the gRPC server: %v\n", err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: %v\n", err)
		os.Exit(1)
	}
}

// parseArgs accepts the engine's logging and tracing flags (which this host ignores) and
// returns the engine address, the positional argument that the engine always passes last.
func parseArgs(args []string) (string, error) {
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		// Flags that take a separate value in the engine's invocation.
		switch name {
		case "tracing", "root", "binary", "nodeargs", "tsconfig", "packagemanager":
			i++
		}
	}
	if len(positional) == 0 {
		return "", errors.New("usage: pulumi-language-nodejs [flags] <engine address>")
	}
	return positional[len(positional)-1], nil
}

type nodeHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string

	mu      sync.Mutex
	running map[*exec.Cmd]struct{}
}

func (h *nodeHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

// GetRequiredPlugins reports no plugins: the program's only resources are dynamic-provider
// resources, and the engine finds pulumi-resource-pulumi-nodejs on PATH when they register.
func (h *nodeHost) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *nodeHost) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *nodeHost) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not on PATH: %w", err)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version failed: %w", node, err)
	}
	return &pulumirpc.AboutResponse{Executable: node, Version: strings.TrimSpace(string(out))}, nil
}

func (h *nodeHost) GetProgramDependencies(
	context.Context, *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

// InstallDependencies has nothing to do: the project is installed with `npm ci` before the
// engine runs. It still answers so that `pulumi install` does not fail.
func (h *nodeHost) InstallDependencies(
	_ *pulumirpc.InstallDependenciesRequest, _ grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	return nil
}

// Cancel interrupts every program this host runs, so that the SDK can finish in-flight
// resource operations and exit.
func (h *nodeHost) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for cmd := range h.running {
		if cmd.Process != nil {
			_ = cmd.Process.Signal(syscall.SIGINT)
		}
	}
	return &emptypb.Empty{}, nil
}

func (h *nodeHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	programDir, entryPoint := req.GetPwd(), req.GetProgram() //nolint:staticcheck // fallback for old engines
	rootDir := programDir
	if info := req.GetInfo(); info != nil {
		programDir, entryPoint, rootDir = info.GetProgramDirectory(), info.GetEntryPoint(), info.GetRootDirectory()
	}
	if entryPoint == "" {
		entryPoint = "."
	}
	runScript, err := findRunScript(programDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "node is not on PATH: " + err.Error()}, nil
	}

	// Node's own flags from the project's `runtime.options.nodeargs` (Pulumi.yaml), before the run
	// script, as Pulumi's host passes them: `--require` of a preload, `--max-old-space-size`.
	args := strings.Fields(req.GetInfo().GetOptions().GetFields()["nodeargs"].GetStringValue())
	args = append(args, runScript,
		"--monitor="+req.GetMonitorAddress(),
		"--engine="+h.engineAddress,
		"--project="+req.GetProject(),
		"--stack="+req.GetStack(),
		"--pwd="+programDir,
		"--root-directory="+rootDir,
		fmt.Sprintf("--parallel=%d", req.GetParallel()),
	)
	if org := req.GetOrganization(); org != "" {
		args = append(args, "--organization="+org)
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	args = append(args, entryPoint)
	args = append(args, req.GetArgs()...)

	env, err := programEnv(req)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = programDir
	cmd.Env = env
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr

	h.track(cmd, true)
	defer h.track(cmd, false)
	if err := cmd.Start(); err != nil {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not start %s: %v", node, err)}, nil
	}
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Signal(syscall.SIGINT) })
	defer stop()

	err = cmd.Wait()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() == exitAfterUserActionableMessage:
		return &pulumirpc.RunResponse{Bail: true}, nil
	case errors.As(err, &exitErr):
		return &pulumirpc.RunResponse{
			Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode()),
		}, nil
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program failed: %v", err)}, nil
	}
}

// killAll ends every program this host runs: the engine that asked for them is gone.
func (h *nodeHost) killAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for cmd := range h.running {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
	}
}

func (h *nodeHost) track(cmd *exec.Cmd, add bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.running == nil {
		h.running = map[*exec.Cmd]struct{}{}
	}
	if add {
		h.running[cmd] = struct{}{}
	} else {
		delete(h.running, cmd)
	}
}

// programEnv passes configuration the way the SDK reads it: PULUMI_CONFIG holds the map of
// key to value, PULUMI_CONFIG_SECRET_KEYS the keys whose values are secrets.
func programEnv(req *pulumirpc.RunRequest) ([]string, error) {
	config := req.GetConfig()
	if config == nil {
		config = map[string]string{}
	}
	configJSON, err := json.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("could not encode the stack configuration: %w", err)
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, fmt.Errorf("could not encode the secret configuration keys: %w", err)
	}
	env := os.Environ()
	env = append(env, "PULUMI_CONFIG="+string(configJSON), "PULUMI_CONFIG_SECRET_KEYS="+string(secretJSON))
	return env, nil
}

// findRunScript locates @pulumi/pulumi's cmd/run in the node_modules that the program resolves,
// walking up from the program directory as Node's own module resolution does.
func findRunScript(programDir string) (string, error) {
	dir, err := filepath.Abs(programDir)
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, "node_modules", "@pulumi", "pulumi", "cmd", "run")
		if st, err := os.Stat(filepath.Join(candidate, "index.js")); err == nil && !st.IsDir() {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf(
				"@pulumi/pulumi is not installed for the program in %s: run `npm ci` in the project first",
				programDir)
		}
		dir = parent
	}
}
