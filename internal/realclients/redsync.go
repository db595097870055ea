package realclients

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// redsyncRetryDelay is the pause between redsync's attempts when an acquire
// step has a WaitMS.
const redsyncRetryDelay = 50 * time.Millisecond

// RunRedsync runs plan with redsync (one Redis, so a quorum of one) on a
// go-redis client named plan.Name, calling emit for each event, and
// returns when every step ran or ctx ends. An await step takes one value
// from cont. Start runs it in a goroutine; cmd/redsyncworker runs it as a
// program.
func RunRedsync(ctx context.Context, plan Plan, emit func(Event), cont <-chan struct{}) error {
	if err := plan.validate(); err != nil {
		return err
	}
	return runRedsync(ctx, plan, emit, cont)
}

func runRedsync(ctx context.Context, plan Plan, emit func(Event), cont <-chan struct{}) error {
	start := time.Now()
	send := func(e Event) {
		e.Lib, e.Name, e.AtMS = Redsync, plan.Name, ms(time.Since(start))
		emit(e)
	}
	client := redis.NewClient(&redis.Options{Addr: plan.Addr, ClientName: plan.Name})
	defer client.Close()
	t0 := time.Now()
	if err := client.Ping(ctx).Err(); err != nil {
		send(Event{Step: -1, Outcome: Error, Error: err.Error(), ErrorType: fmt.Sprintf("%T", err)})
		send(Event{Step: -1, Outcome: Done})
		return fmt.Errorf("realclients: redsync: connect %s: %w", plan.Addr, err)
	}
	send(Event{Step: -1, Outcome: Ready, TookMS: ms(time.Since(t0))})
	rs := redsync.New(goredis.NewPool(client))
	lease := time.Duration(plan.LeaseMS) * time.Millisecond
	var mutex *redsync.Mutex
	for i, s := range plan.Steps {
		e := Event{Step: i, Do: s.Do}
		t0 = time.Now()
		switch s.Do {
		case Hold:
			select {
			case <-time.After(time.Duration(s.MS) * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
			e.Outcome = Held
		case Await:
			send(Event{Step: i, Do: s.Do, Outcome: Awaiting})
			t0 = time.Now()
			select {
			case <-cont:
			case <-ctx.Done():
				return ctx.Err()
			}
			e.Outcome = Continued
		case Acquire:
			tries := 1 + s.WaitMS/int(redsyncRetryDelay/time.Millisecond)
			m := rs.NewMutex(plan.Key, redsync.WithExpiry(lease), redsync.WithTries(tries), redsync.WithRetryDelay(redsyncRetryDelay))
			err := m.LockContext(ctx)
			var taken *redsync.ErrTaken
			switch {
			case err == nil:
				mutex, e.Outcome, e.Owner = m, Acquired, m.Value()
			case errors.As(err, &taken) || errors.Is(err, redsync.ErrFailed):
				e.Outcome = Busy
			default:
				e.Outcome = Error
			}
			e.Error, e.ErrorType = errText(err)
		case Extend, Release:
			if mutex == nil {
				e.Outcome, e.Error = Error, "worker: "+s.Do+" before acquire"
				break
			}
			e.Owner = mutex.Value()
			var ok bool
			var err error
			if s.Do == Extend {
				ok, err = mutex.ExtendContext(ctx)
			} else {
				ok, err = mutex.UnlockContext(ctx)
			}
			var redisErr *redsync.RedisError
			switch {
			case ok && s.Do == Extend:
				e.Outcome = Extended
			case ok:
				e.Outcome = Released
			case errors.As(err, &redisErr):
				e.Outcome = Error
			case s.Do == Extend:
				e.Outcome = LockLost
			default:
				e.Outcome = NotOwner
			}
			e.Error, e.ErrorType = errText(err)
		}
		e.TookMS = ms(time.Since(t0))
		send(e)
	}
	send(Event{Step: -1, Outcome: Done})
	return nil
}

// errText returns redsync's error text and the name of its type or
// sentinel ("" for nil).
func errText(err error) (string, string) {
	var taken *redsync.ErrTaken
	var redisErr *redsync.RedisError
	switch {
	case err == nil:
		return "", ""
	case errors.Is(err, redsync.ErrLockAlreadyExpired):
		return err.Error(), "ErrLockAlreadyExpired"
	case errors.Is(err, redsync.ErrExtendFailed):
		return err.Error(), "ErrExtendFailed"
	case errors.Is(err, redsync.ErrFailed):
		return err.Error(), "ErrFailed"
	case errors.As(err, &taken):
		return err.Error(), "ErrTaken"
	case errors.As(err, &redisErr):
		return err.Error(), "RedisError"
	}
	return err.Error(), fmt.Sprintf("%T", err)
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
