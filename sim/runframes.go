package sim

import (
	"context"
	"errors"
	"fmt"
)

// StoreOpener opens a fresh Store for one run and returns it with the
// function that ends the run: it deletes the run's keys and closes the
// store, and is called even when ctx is done.
type StoreOpener func() (Store, func(context.Context) error, error)

// RunFrames runs l from its start to its end on a store from open and
// returns every frame (frames[0] is the start). The store is ended before
// RunFrames returns; an error ending it is returned with the frames. Errors
// name the lesson and wrap the cause (errors.Is sees a context's end).
func RunFrames(ctx context.Context, l *Lesson, open StoreOpener) (frames []Frame, err error) {
	st, end, err := open()
	if err != nil {
		return nil, fmt.Errorf("sim: lesson %s: new store: %w", l.ID, err)
	}
	defer func() {
		if e := end(context.WithoutCancel(ctx)); e != nil {
			err = errors.Join(err, fmt.Errorf("sim: lesson %s: end run: %w", l.ID, e))
		}
	}()
	r, err := NewRunner(l, st)
	if err != nil {
		return nil, fmt.Errorf("sim: lesson %s: %w", l.ID, err)
	}
	frames, err = r.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("sim: run %s: %w", l.ID, err)
	}
	return frames, nil
}
