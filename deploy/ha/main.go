// Command paddock-ha is the YuniKorn Kubernetes shim on Paddock with
// leader election: the upstream shim's start-up, unmodified, around a
// Paddock core that is a hot standby until its replica holds a
// coordination.k8s.io Lease.
//
// It is built inside a copy of the shim's module, as pkg/cmd/paddock-ha,
// the way deploy/shim/Dockerfile and e2e/kubernetes build the shim (its
// go.mod here only keeps it out of Paddock's own module). With
// paddock.leaderElection.enabled unset or false it starts exactly as the
// shim's own main does. With it true:
//
//   - the core starts as a standby (compat/yunikorn-core
//     StartStandbyWithLogger) and the shim starts on it as usual: its
//     informers sync, it registers, lists nodes and pods into its cache,
//     and sends the core its nodes, applications and foreign pods. The
//     core answers the node registrations only, so the shim writes
//     nothing to the API server (docs/high-availability.md);
//   - the replica then runs for the Lease. Once it holds it, every
//     renewal moves the core's lease deadline to the renewal's start plus
//     the renew deadline (LeadUntil), and the core is activated once the
//     shim's cache has caught up with the pods the API server has bound
//     (settle.go);
//   - a leader that cannot renew is paused by that deadline before any
//     other replica can acquire the Lease (renew deadline < lease
//     duration); a renewal that comes late resumes it, and when the
//     elector gives up, it fences explicitly and exits with status 1, to
//     come back as a standby. A leader whose core diverged (a pause cut a
//     delivery short) gives the Lease up and exits 1 as well;
//   - SIGTERM (a rolling update) fences the core, waits for the shim's
//     binds in flight (drain.go), releases the Lease, stops the shim and
//     exits 0. A standby watches the Lease and runs
//     for it again the moment it sees it released, without waiting out its
//     retry period (candidate.go).
//
// The settings are keys of the shim's ConfigMaps (yunikorn-defaults,
// yunikorn-configs), read once at start: paddock.leaderElection.enabled,
// .leaseName, .leaseNamespace, .leaseDuration, .renewDeadline and
// .retryPeriod (settings.go). The replica's identity cannot come from a
// ConfigMap every replica shares: it is the pod's host name and a random
// suffix, or $PADDOCK_LEADER_ELECTION_IDENTITY.
package main

import (
	"context"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/apache/yunikorn-core/pkg/entrypoint"
	"github.com/apache/yunikorn-k8shim/pkg/client"
	"github.com/apache/yunikorn-k8shim/pkg/common/constants"
	"github.com/apache/yunikorn-k8shim/pkg/conf"
	"github.com/apache/yunikorn-k8shim/pkg/log"
	"github.com/apache/yunikorn-k8shim/pkg/plugin/predicates"
	"github.com/apache/yunikorn-k8shim/pkg/shim"
)

func main() {
	logger := log.Log(log.Shim)
	logger.Info(conf.GetBuildInfoString())
	predicates.EnableOptionalKubernetesFeatureGates()
	configMaps, err := client.LoadBootstrapConfigMaps()
	if err != nil {
		logger.Fatal("Unable to bootstrap configuration", zap.Error(err))
	}
	if err := conf.UpdateConfigMaps(configMaps, true); err != nil {
		logger.Fatal("Unable to load initial configmaps", zap.Error(err))
	}
	set, err := parseSettings(conf.FlattenConfigMaps(configMaps), conf.GetSchedulerConf().Namespace)
	if err != nil {
		logger.Fatal("Invalid leader election settings", zap.Error(err))
	}
	logger.Info("Starting scheduler", zap.String("name", constants.SchedulerName),
		zap.Bool("leaderElection", set.Enabled))
	var sc *entrypoint.ServiceContext
	if set.Enabled {
		sc = entrypoint.StartStandbyWithLogger(log.RootLogger(), log.GetZapConfigs())
	} else {
		sc = entrypoint.StartAllServicesWithLogger(log.RootLogger(), log.GetZapConfigs())
	}
	if sc.RMProxy == nil {
		logger.Fatal("The scheduler core did not start")
	}
	ss := shim.NewShimScheduler(sc.RMProxy, conf.GetSchedulerConf(), configMaps)
	if err := ss.Run(); err != nil {
		logger.Fatal("Unable to start scheduler", zap.Error(err))
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	if !set.Enabled {
		<-signals
		logger.Info("Shutdown signal received, exiting...")
		ss.Stop()
		os.Exit(0)
	}
	os.Exit(lead(sc, ss, set, signals))
}

// lead runs for the Lease until a signal comes (status 0) or the
// leadership is lost (status 1).
func lead(sc *entrypoint.ServiceContext, ss *shim.KubernetesShim, set settings, signals <-chan os.Signal) int {
	logger := log.Log(log.Shim)
	cfg, err := leaseConfig(conf.GetSchedulerConf().KubeConfig)
	if err != nil {
		logger.Fatal("Unable to create the lease client", zap.Error(err))
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		logger.Fatal("Unable to create the lease client", zap.Error(err))
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		logger.Fatal("Unable to create the metadata client", zap.Error(err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	var leading atomic.Bool
	lock := &renewals{
		Interface: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Name: set.LeaseName, Namespace: set.LeaseNamespace},
			Client:     kube.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: set.Identity},
		},
		deadline: set.RenewDeadline,
		leadUntil: func(t time.Time) {
			sc.LeadUntil(t)
			// a leader whose lapse ended in stranded decisions cannot
			// lead on: it gives the lease up for the hot standby
			if leading.Load() && sc.Diverged() {
				logger.Error("The scheduler core diverged while it led; giving the lease up", zap.String("identity", set.Identity))
				leading.Store(false)
				cancel()
			}
		},
		lapsed: func(late time.Duration) {
			logger.Warn("Lease renewed after the renew deadline: the scheduler core paused and resumes",
				zap.Duration("late", late))
		},
	}
	cand := &candidate{
		kube: kube, name: set.LeaseName, namespace: set.LeaseNamespace,
		config: leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   set.LeaseDuration,
			RenewDeadline:   set.RenewDeadline,
			RetryPeriod:     set.RetryPeriod,
			ReleaseOnCancel: true,
			Name:            set.LeaseName,
		},
		lead: func(lctx context.Context) {
			// the shim's cache must have caught up with the pods bound
			// before the takeover: see settle
			start := time.Now()
			behind, err := settle(lctx, pendingInAPI(meta, constants.SchedulerName), pendingInShim(ss.GetContext()), settleMax, 20*time.Millisecond)
			if lctx.Err() != nil {
				return // the leadership ended meanwhile
			}
			switch {
			case err != nil:
				logger.Warn("Cannot check the shim's cache against the API server; leading anyway", zap.Error(err))
			case behind > 0:
				logger.Warn("The shim's cache is still behind the API server; leading anyway",
					zap.Int("pods", behind), zap.Duration("waited", time.Since(start)))
			default:
				logger.Info("The shim's cache has caught up with the API server", zap.Duration("took", time.Since(start)))
			}
			if err := sc.Activate(); err != nil {
				logger.Error("Leader cannot activate its scheduler core", zap.Error(err))
				sc.Deactivate()
				cancel()
				return
			}
			leading.Store(true)
			logger.Info("Leading: the scheduler core decides", zap.String("identity", set.Identity))
		},
		stopped: func() {
			sc.Deactivate() // fence first: nothing more is decided or sent
			if ctx.Err() == nil {
				logger.Error("Leadership lost: the scheduler core is fenced; exiting to restart as a standby",
					zap.String("identity", set.Identity))
			}
		},
		newLeader: func(id string) {
			logger.Info("Leader", zap.String("identity", id), zap.Bool("self", id == set.Identity))
		},
	}
	if _, err := cand.elector(new(atomic.Bool)); err != nil {
		logger.Fatal("Invalid leader election configuration", zap.Error(err))
	}
	logger.Info("Hot standby ready: running for the lease", zap.String("lease", set.LeaseNamespace+"/"+set.LeaseName),
		zap.String("identity", set.Identity), zap.Duration("leaseDuration", set.LeaseDuration),
		zap.Duration("renewDeadline", set.RenewDeadline), zap.Duration("retryPeriod", set.RetryPeriod))
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		if _, err := cand.run(ctx); err != nil {
			logger.Error("Invalid leader election configuration", zap.Error(err))
		}
	}()
	select {
	case <-signals:
		logger.Info("Shutdown signal received: fencing, draining the binds in flight, releasing the lease, exiting...")
		sc.Deactivate()
		if leading.Load() {
			if left := drain(inFlight(ss.GetContext()), set.LeaseDuration-set.RenewDeadline, 10*time.Millisecond); left > 0 {
				logger.Warn("Binds still in flight at the release", zap.Int("binds", left))
			}
		}
		cancel()
		select {
		case <-ended: // the elector released the lease (when it held it)
		case <-time.After(set.RenewDeadline):
		}
		ss.Stop()
		return 0
	case <-ended:
		// the leadership ended (fenced already), or the core could not
		// lead: exit at once, as kube-scheduler does, without waiting for
		// the shim's goroutines
		sc.Deactivate()
		cancel()
		return 1
	}
}

// leaseConfig is the configuration of a client of the API server for the
// Lease (and the takeover's one list of pending pods), on a connection of
// its own: the shim's client shares its connections between
// all its requests (client-go shares one transport per configuration), and
// a renewal must not wait behind the binds and events of a wave for a
// stream or a new connection. Its rate limit is its own as well.
func leaseConfig(kubeConfig string) (*rest.Config, error) {
	cfg, err := client.CreateRestConfig(kubeConfig)
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 20, 40
	// a dialer of its own: client-go then gives the client a transport
	// (and connections) of its own instead of the shared one
	cfg.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return cfg, nil
}

// settleMax bounds how long a new leader waits for its shim's cache to
// catch up before it leads anyway: longer than any lag seen on the 2-core
// test machine at 10,000 pods, short enough that a cache that never
// catches up (a bug) does not stop scheduling.
const settleMax = 30 * time.Second
