/* A thread pool (issue 26): workers wait on a condition variable for work
   items that the main thread hands out, and the main thread waits on
   another for them to finish. The waiting loops spend their time blocked
   in pthread_cond_wait, not on a CPU; the work loop (scale) is the
   program's CPU time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 2
#define N 4096

static pthread_mutex_t Mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t WorkCv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t DoneCv = PTHREAD_COND_INITIALIZER;
static int Pending, Finished, Quit;
static double Data[WORKERS][N];

__attribute__((noinline)) void scale(double *p, int n, double x) {
  for (int i = 0; i < n; i++)
    p[i] = p[i] * x + 1.0;
}

/* Blocks until there is work or the pool closes; returns 0 on close. */
__attribute__((noinline)) int take(void) {
  while (!Pending && !Quit)
    pthread_cond_wait(&WorkCv, &Mu);
  if (!Pending)
    return 0;
  --Pending;
  return 1;
}

static void *worker(void *arg) {
  double *p = arg;
  pthread_mutex_lock(&Mu);
  while (take()) {
    pthread_mutex_unlock(&Mu);
    for (int r = 0; r < 4; r++)
      scale(p, N, 0.999);
    pthread_mutex_lock(&Mu);
    ++Finished;
    pthread_cond_signal(&DoneCv);
  }
  pthread_mutex_unlock(&Mu);
  return 0;
}

/* Blocks until \p n items are done. */
__attribute__((noinline)) void wait_done(int n) {
  while (Finished < n)
    pthread_cond_wait(&DoneCv, &Mu);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3000;
  pthread_t T[WORKERS];
  for (int w = 0; w < WORKERS; w++)
    pthread_create(&T[w], 0, worker, Data[w]);
  pthread_mutex_lock(&Mu);
  for (int r = 0; r < rounds; r++) {
    Pending += WORKERS;
    Finished = 0;
    pthread_cond_broadcast(&WorkCv);
    wait_done(WORKERS);
  }
  Quit = 1;
  pthread_cond_broadcast(&WorkCv);
  pthread_mutex_unlock(&Mu);
  for (int w = 0; w < WORKERS; w++)
    pthread_join(T[w], 0);
  printf("%f\n", Data[0][1] + Data[1][2]);
  return 0;
}
